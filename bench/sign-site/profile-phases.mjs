// Where a phase of the sign-site bench spends its CPU time, from the V8 CPU profiles its process wrote
// (`node --cpu-prof`: one `.cpuprofile` for the main thread and one per worker thread). Each sample's time
// goes to the innermost frame of its stack that belongs to a part of the work (CATEGORIES, first match from
// the leaf up); V8's own `(garbage collector)` is its own part, `(idle)` is not CPU time and is left out,
// and `start-up` is loading the modules (a fixed cost, large only for a small site).
// The bunker's signing happens in the bunker's process: here `sign` is this side of it (the HTTP client,
// the events' ids), not the Schnorr signatures themselves.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The parts, in the order they are printed, each with what marks its frames (URL or function name). */
export const CATEGORIES = [
  [
    'read',
    (url, name) =>
      (isFs(url) && /read|open|stat|close/i.test(name)) || /\/fs\/(file-io|find-pages)/.test(url),
  ],
  [
    'parse',
    (url) =>
      /\/parse5\/|\/page\/(html-parser|current-parser|current-tokenizer|recording-parser|parse|parser-scope|compact-tree|parse-worker|parse-pool)\.js/.test(
        url,
      ),
  ],
  [
    'hash',
    (url, name) =>
      /@noble\/hashes|internal\/crypto\/hash/.test(url) || /^(sha256|createHash|digest)$/.test(name),
  ],
  ['checks', (url) => /\/page\/|css-tree|\/verify\//.test(url)],
  [
    'sign',
    (url) =>
      /\/signer\/|\/nostr\/(crypto|signer|bech32|verify-signature|event-shape)|@noble\/curves|nostr-tools|undici|internal\/(http|net)/.test(
        url,
      ),
  ],
  [
    'write',
    (url, name) =>
      (isFs(url) && /write|rename|fsync|mkdir/i.test(name)) || /\/fs\/(atomic-write|durable)/.test(url),
  ],
  ['cache', (url) => /\/cache\//.test(url)],
  ['publish', (url) => /\/nostr\/|\/manifest\/|sign-manifest|publish|\/ws\//.test(url)],
  ['start-up', (url) => /internal\/modules\/|internal\/bootstrap\//.test(url)],
];

const isFs = (url) => /internal\/fs\/|^node:fs|internal\/fs\.js/.test(url);

/** The part a stack belongs to: the innermost frame some category claims, else `other`. */
function categorize(stack) {
  for (const frame of stack) {
    const { url, functionName: name } = frame;
    if (name === '(garbage collector)') return 'gc';
    for (const [category, claims] of CATEGORIES) if (claims(url, name)) return category;
  }
  return 'other';
}

/**
 * Sum the `.cpuprofile` files in `dir` into milliseconds per part (`gc` and `other` included) and the
 * number of threads profiled.
 */
export async function summarizeProfiles(dir) {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile'));
  const ms = new Map([...CATEGORIES.map(([name]) => [name, 0]), ['gc', 0], ['other', 0]]);
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8'));
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const part = new Map();
    const partOf = (id) => {
      let known = part.get(id);
      if (known !== undefined) return known;
      const stack = [];
      for (let at = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at).callFrame);
      if (stack[0].functionName === '(idle)') known = null;
      else known = categorize(stack);
      part.set(id, known);
      return known;
    };
    profile.samples.forEach((id, index) => {
      const category = partOf(id);
      if (category !== null) ms.set(category, ms.get(category) + (profile.timeDeltas[index] ?? 0) / 1000);
    });
  }
  return { ms, threads: files.length };
}

/** One line: the CPU time profiled and each part's share of it, largest first. */
export function describeProfile({ ms, threads }) {
  const total = [...ms.values()].reduce((sum, value) => sum + value, 0);
  const parts = [...ms.entries()]
    .filter(([, value]) => value > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, value]) => `${name} ${((100 * value) / total).toFixed(0)}%`);
  return `${(total / 1000).toFixed(2)} s CPU on ${threads} thread(s): ${parts.join(', ')}`;
}
