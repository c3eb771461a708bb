// One measured phase of the sign-site bench, in its own process so its peak RSS is its own.
// Prints one JSON line: { phase, ms, maxRssMb, summary?, manifest? }.
//   node measure.mjs parse <dir>
//   node measure.mjs writes <dir>
//   node measure.mjs sign  <dir> <cacheFile> <bunkerUrl> <token> <site>
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse } from 'parse5';
import { peakRssKib } from './peak-rss.mjs';

const [phase, dir, cacheFile, bunkerUrl, token, site] = process.argv.slice(2);

async function listFiles(root, keep) {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && keep(entry.name, relative(root, entry.parentPath)))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const listHtml = (root) => listFiles(root, (name) => name.endsWith('.html'));
/** The assets the pages reference (CSS, JS, images): every other file, except Siegel's own verify files. */
const listAssets = (root) =>
  listFiles(root, (name, folder) => !name.endsWith('.html') && folder.split('/')[0] !== 'verify');

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
  // The same file work a warm run does, the same way (see pump.ts and fs/file-io.ts): pages read in
  // synchronous chunks, each page replaced atomically and its verify page and event written in place on the
  // I/O thread — and every asset the pages reference (CSS, JS, images) read once the same way, as a run
  // that hashes assets must at least do. Nothing is parsed, hashed or signed.
  const { ChunkReader, FileWorker } = await import('../../packages/core/dist/fs/file-io.js');
  const files = await listHtml(dir);
  const assets = await listAssets(dir);
  const start = performance.now();
  const io = FileWorker.create();
  const reader = new ChunkReader();
  let assetBytes = 0;
  for (let first = 0; first < assets.length; first += 32)
    for (const bytes of reader.read(assets.slice(first, first + 32))) {
      if (bytes instanceof Error) throw bytes;
      assetBytes += bytes.length;
    }
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
  result = { phase, ms: performance.now() - start, assets: assets.length, assetBytes };
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
      // How each written page's block was checked to verify: proven by the parse, or read back (issue 34).
      blockChecks: summary.blockChecks,
    },
    // The site manifest's share (issue 36): time from the stale files' removal to the manifest written,
    // events signed (0 or 1), its layout and bytes.
    manifest: summary.manifest && {
      ms: summary.manifest.ms,
      events: summary.manifest.signed ? 1 : 0,
      layout: summary.manifest.layout,
      files: summary.manifest.files,
      eventBytes: summary.manifest.eventBytes,
      blobBytes: summary.manifest.blobBytes,
    },
  };
} else {
  throw new Error(`unknown phase \`${phase}\``);
}
result.maxRssMb = Math.round(peakRssKib() / 1024);
const cpu = process.cpuUsage();
result.cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify(result)}\n`);
