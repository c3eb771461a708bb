// One measured phase of the sign-site bench, in its own process so its peak RSS is its own.
// Prints one JSON line: { phase, ms, maxRssMb, summary? }.
//   node measure.mjs parse <dir>
//   node measure.mjs writes <dir>
//   node measure.mjs sign  <dir> <cacheFile> <bunkerUrl> <token> <site>
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'parse5';

const [phase, dir, cacheFile, bunkerUrl, token, site] = process.argv.slice(2);

async function listHtml(root) {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

let result;
if (phase === 'parse') {
  const start = performance.now();
  let nodes = 0;
  for (const file of await listHtml(dir)) {
    const document = parse(await readFile(file, 'utf8'));
    nodes += document.childNodes.length;
  }
  result = { phase, ms: performance.now() - start, nodes };
} else if (phase === 'writes') {
  // The same writes a warm run makes: the page atomically, its verify files in place (see verify-output.ts).
  const { mkdirFast, readFileFast, writeFileAtomic, writeFileFast } = await import(
    '../../packages/core/dist/atomic-write.js'
  );
  const files = await listHtml(dir);
  const start = performance.now();
  const verifyPage = 'v'.repeat(4_000);
  const event = 'e'.repeat(900);
  let active = [];
  for (const [index, file] of files.entries()) {
    const bytes = await readFileFast(file);
    const id = String(index).padStart(64, '0');
    active.push(
      (async () => {
        await writeFileAtomic(file, bytes);
        await mkdirFast(join(dir, 'verify', id));
        await Promise.all([
          writeFileFast(join(dir, 'verify', id, 'index.html'), verifyPage),
          writeFileFast(join(dir, 'verify', `${id}.json`), event),
        ]);
      })(),
    );
    if (active.length >= 16) {
      await Promise.all(active);
      active = [];
    }
  }
  await Promise.all(active);
  result = { phase, ms: performance.now() - start };
} else if (phase === 'sign') {
  const { HttpBunkerSigner, signSite } = await import('../../packages/core/dist/index.js');
  const signer = new HttpBunkerSigner({ url: bunkerUrl, apiToken: token });
  const start = performance.now();
  const summary = await signSite(dir, {
    site,
    signer,
    cacheFile,
    progress: false,
    ...(process.env.BENCH_PARSE_WORKERS ? { parseWorkers: Number(process.env.BENCH_PARSE_WORKERS) } : {}),
    logger: { info() {}, warn: (message) => process.stderr.write(`${message}\n`) },
  });
  result = {
    phase,
    ms: performance.now() - start,
    summary: {
      signed: summary.signed,
      unchanged: summary.unchanged,
      skipped: summary.skipped,
      failed: summary.failed,
    },
  };
} else {
  throw new Error(`unknown phase \`${phase}\``);
}
// Peak RSS of this process's memory (all its threads): VmHWM. Not getrusage's maxRSS, which Linux carries
// over from the parent across fork + exec, so it reports the spawning process's size when that is larger.
function peakRssKib() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}
result.maxRssMb = Math.round(peakRssKib() / 1024);
process.stdout.write(`${JSON.stringify(result)}\n`);
