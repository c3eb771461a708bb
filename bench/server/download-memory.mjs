// Bench (not a test), issue 34 §2: peak RSS of the server process while PARALLEL clients download one signed
// FILE_MIB MiB file at once (`GET /{hash}`, no authentication), and how fast the verify API answers meanwhile
// (test/server/verify-probe.mjs, in a thread of its own, asking `GET /api/verify?hash=` one request after
// another). Real processes: a bunker and the built server with its default settings. A download answered 503
// `SERVER_BUSY` is asked again after its Retry-After, as a client should, until every one is answered; every
// body is hashed as it arrives and must be the file. Before downloads were streamed, each one held the whole
// file in memory: 120 × 24 MiB took the server to 3.1 GB. Goals: peak < 500 MB, verify worst < 500 ms.
//
//   npm run build && node bench/server/download-memory.mjs
//   BENCH_PARALLEL=4 BENCH_FILE_MIB=1 node bench/server/download-memory.mjs   # tiny (the bench smoke test)
//
// Exits 1 when a download ends in anything but 200 with the file's bytes: then it measured something else.
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { hashedDownload } from '../../test/support/hashed-download.mjs';
import { createBenchRun, memoryOf, signFile, startProbe } from './processes.mjs';

const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 120);
const FILE_MIB = Number(process.env.BENCH_FILE_MIB ?? 24);
const GOALS = { peakMb: 500, verifyMs: 500 };

/** A Markdown file of about FILE_MIB MiB naming its author; one random line makes its hash new each run. */
function makeMarkdown() {
  const line = 'Grüße aus Köln: ein Absatz mit Umlauten, damit der Text kein reines ASCII ist. ÄÖÜ äöü ß.\n';
  const head = `---\nauthor: Bench Author\ntitle: Download bench ${randomBytes(8).toString('hex')}\n---\n# Download bench\n\n`;
  const body = line.repeat(Math.floor((FILE_MIB * 1024 * 1024 - head.length) / Buffer.byteLength(line)));
  return Buffer.from(head + body);
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const run = createBenchRun();
try {
  const bunker = await run.startBunker();
  const token = randomBytes(16).toString('hex');
  const server = await run.startServer(bunker, token);
  const file = makeMarkdown();
  const { hash } = await signFile(server.port, token, 'download-bench.md', file);
  if (hash !== createHash('sha256').update(file).digest('hex'))
    throw new Error('the signed hash is not the file’s');
  // The file settles first: for 2 s after a write its stamp cannot be trusted (RACY_VERSION_MS), and every
  // check — each download's and each verify call's — reads all of it again. Measured here in that window:
  // verify's worst 250–710 ms, each call waiting for a read of the file among the downloads.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  // One download first: the server loads what serving needs, and the file's check is made (and remembered).
  const first = await hashedDownload(`http://127.0.0.1:${server.port}/${hash}`);
  if (first.status !== 200 || first.sha256 !== hash)
    throw new Error(`the first download got ${first.status}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = await memoryOf(server.child.pid);
  await writeFile(`/proc/${server.child.pid}/clear_refs`, '5'); // peak counter from now

  const probe = startProbe(`http://127.0.0.1:${server.port}/api/verify?hash=${hash}`);
  await probe.started;
  const started = performance.now();
  const statuses = {};
  const wrong = [];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (true) {
        const answer = await hashedDownload(`http://127.0.0.1:${server.port}/${hash}`);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.status === 503) {
          await new Promise((resolve) =>
            setTimeout(resolve, 1000 * Number(answer.headers['retry-after'] ?? 1)),
          );
          continue;
        }
        if (answer.status !== 200 || answer.sha256 !== hash || answer.length !== file.length)
          wrong.push({ status: answer.status, length: answer.length, cutOff: answer.cutOff });
        return;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const verify = await probe.stop();
  const after = await memoryOf(server.child.pid);

  const peakMet = after.peak < GOALS.peakMb * 1024 * 1024;
  const verifyMet = verify.slowestMs < GOALS.verifyMs;
  console.log(
    `siegel server download memory bench: Node ${process.versions.node}, ${PARALLEL} parallel GET /{hash}, default settings`,
  );
  console.log(
    `  download ${PARALLEL} × ${mb(file.length)}: idle ${mb(idle.current)}, peak ${mb(after.peak)} (goal < ${GOALS.peakMb} MB: ${peakMet ? 'met' : 'NOT met'}), after ${mb(after.current)}; all answered in ${seconds.toFixed(1)} s ${JSON.stringify(statuses)}; ${PARALLEL - wrong.length} of ${PARALLEL} bodies are the file`,
  );
  console.log(
    `  verify meanwhile: worst ${verify.slowestMs.toFixed(0)} ms (goal < ${GOALS.verifyMs} ms: ${verifyMet ? 'met' : 'NOT met'}), ${(verify.slowestAtMs / 1000).toFixed(1)} s into the downloads; mean ${(verify.durationMs / Math.max(1, verify.count)).toFixed(1)} ms over ${verify.count} requests ${JSON.stringify(verify.statuses)}`,
  );
  if (wrong.length > 0) {
    console.error(
      `download memory bench: ${wrong.length} downloads were not the file: ${JSON.stringify(wrong[0])}`,
    );
    process.exitCode = 1;
  }
} finally {
  await run.close();
}
