// Bench (not a test) for the file-signing service (issue 5, acceptance 6; issue 10, acceptance 5), against
// real processes:
//  1. GET /api/verify?hash= requests/s on the real server vs a bare Hono JSON route, same load generator,
//     same run (goal ≥ 0.7×);
//  2. peak RSS of the server process signing a 10 MB file (goal ≤ 3× the file + the idle server);
// Peak RSS with 60 parallel 24 MiB uploads, per route and file type, is upload-memory.mjs; sign latency with
// a silent relay is relays.mjs.
//
//   npm run build && node bench/server/run.mjs
//   BENCH_SECONDS=10 BENCH_CONCURRENCY=32 node bench/server/run.mjs
//   BENCH_SECONDS=0.5 BENCH_CONCURRENCY=4 BENCH_FILE_MB=1 node bench/server/run.mjs   # tiny (the bench smoke test)
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { pngChunk } from '../../server/fixtures/png-chunk.mjs';
import { createBenchRun, freePort, memoryOf, ROOT, signFile, spawnUntil } from './processes.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 10);
const BARE = join(ROOT, 'bench/server/bare-server.mjs');

/**
 * Keep-alive GET load on several targets, interleaved in short slices (so a change in the machine's load
 * hits every target alike) for SECONDS each at CONCURRENCY; returns requests/s per target. Every answer's
 * status is checked.
 */
async function load(targets) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (port, path, expectStatus) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === expectStatus ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const run = async ({ port, path, status }, ms) => {
    let count = 0;
    const until = Date.now() + ms;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until) {
          await get(port, path, status);
          count++;
        }
      }),
    );
    return { count, ms: performance.now() - start };
  };
  for (const target of targets) await run(target, Math.min(1000, SECONDS * 1000)); // warm-up
  const totals = targets.map(() => ({ count: 0, ms: 0 }));
  const SLICE = 500;
  for (let slice = 0; slice < (SECONDS * 1000) / SLICE; slice++) {
    for (const [i, target] of targets.entries()) {
      const { count, ms } = await run(target, SLICE);
      totals[i].count += count;
      totals[i].ms += ms;
    }
  }
  agent.destroy();
  return totals.map(({ count, ms }) => (count / ms) * 1000);
}

/** A valid PNG of about `megabytes` MB (incompressible noise) whose XMP names an author. */
function makePng(megabytes) {
  const chunk = pngChunk;
  const width = 1024;
  const height = Math.ceil((megabytes * 1024 * 1024) / (width * 3 + 1));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = randomBytes(height * (width * 3 + 1));
  for (let row = 0; row < height; row++) raw[row * (width * 3 + 1)] = 0; // filter type none
  const xmp = Buffer.from(
    'XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Bench Author</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>',
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('iTXt', xmp),
    chunk('IDAT', deflateSync(raw, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const run = createBenchRun();
try {
  const bunker = await run.startBunker();
  const token = randomBytes(16).toString('hex');

  // --- 2. peak RSS signing a 10 MB file. Before each upload the server idles, its resident set is read, and
  // its peak counter is reset (`echo 5 > /proc/PID/clear_refs`), so each round measures that upload alone.
  // Three different files in a row on a freshly started server: the first pays for first-use allocations.
  const measure = async ({ port, child }, round) => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = await memoryOf(child.pid);
    await writeFile(`/proc/${child.pid}/clear_refs`, '5');
    const file = makePng(FILE_MB);
    const signed = await signFile(port, token, `bench-${round}.png`, file);
    const after = await memoryOf(child.pid);
    if (signed.hash !== createHash('sha256').update(file).digest('hex')) throw new Error('wrong hash');
    return { idle: idle.current, peak: after.peak, size: file.length, signed };
  };
  const server = await run.startServer(bunker, token);
  const serverPort = server.port;
  await fetch(`http://127.0.0.1:${serverPort}/api/verify?hash=${'0'.repeat(64)}`);
  const rounds = [];
  for (let round = 1; round <= 3; round++) rounds.push(await measure(server, round));
  const { signed } = rounds[0];

  // --- 1. verify requests/s vs a bare Hono JSON route ---
  const barePort = await freePort();
  const verifyBody = await (
    await fetch(`http://127.0.0.1:${serverPort}/api/verify?hash=${signed.hash}`)
  ).text();
  const bare = await spawnUntil([BARE], { PORT: String(barePort), BENCH_BODY: verifyBody }, /listening on/);
  run.adopt(bare.child);
  const [bareRate, verifyRate, sameBodyRate] = await load([
    { port: barePort, path: '/json', status: 200 },
    { port: serverPort, path: `/api/verify?hash=${signed.hash}`, status: 200 },
    { port: barePort, path: '/same-body', status: 200 },
  ]);
  const ratio = verifyRate / bareRate;
  await run.stop(bare.child);

  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `siegel server bench: Node ${process.versions.node}, ${SECONDS} s per route in interleaved 0.5 s slices, ${CONCURRENCY} connections`,
  );
  console.log(`  bare Hono JSON route      : ${Math.round(bareRate).toString().padStart(7)} req/s`);
  console.log(`  GET /api/verify?hash=     : ${Math.round(verifyRate).toString().padStart(7)} req/s`);
  console.log(`  ratio: ${ratio.toFixed(2)}× (goal ≥ 0.7×) ${ratio >= 0.7 ? 'met' : 'NOT met'}`);
  console.log(
    `  (for scale: the bare route answering the verify API's ${verifyBody.length}-byte body: ${Math.round(sameBodyRate)} req/s; verify = ${(verifyRate / sameBodyRate).toFixed(2)}× of that)`,
  );
  for (const [i, round] of rounds.entries()) {
    const growth = round.peak - round.idle;
    const limit = 3 * round.size + round.idle;
    console.log(
      `  signing ${mb(round.size)} PNG #${i + 1}: idle RSS ${mb(round.idle)}, peak ${mb(round.peak)}, growth ${mb(growth)} = ${(growth / round.size).toFixed(2)}× the file; goal peak ≤ 3× file + idle = ${mb(limit)}: ${round.peak <= limit ? 'met' : 'NOT met'}`,
    );
  }
} finally {
  await run.close();
}
