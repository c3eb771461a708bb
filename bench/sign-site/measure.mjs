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
  // The same file work a warm run does, the same way (see sign-site.ts and file-io.ts): pages read in
  // synchronous chunks, each page replaced atomically and its verify page and event written in place on the
  // I/O thread. Nothing is parsed, hashed or signed.
  const { ChunkReader, FileWorker } = await import('../../packages/core/dist/pipeline/file-io.js');
  const files = await listHtml(dir);
  const start = performance.now();
  const io = FileWorker.create();
  const reader = new ChunkReader();
  const verifyPage = 'v'.repeat(4_000);
  const event = 'e'.repeat(900);
  const jobs = [];
  for (let first = 0; first < files.length; first += 32) {
    for (const [offset, bytes] of reader.read(files.slice(first, first + 32)).entries()) {
      const index = first + offset;
      const id = String(index).padStart(64, '0');
      const verifyDir = join(dir, 'verify', id);
      jobs.push(
        io.run([
          { op: 'replace', path: files[index], data: Buffer.concat([bytes, Buffer.from('<!-- -->')]) },
        ]),
        io.run([
          { op: 'mkdir', path: verifyDir },
          { op: 'write', path: join(verifyDir, 'index.html'), data: verifyPage },
          { op: 'write', path: join(dir, 'verify', `${id}.json`), data: event },
        ]),
      );
    }
    if (jobs.length >= 128) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  await io.close();
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
