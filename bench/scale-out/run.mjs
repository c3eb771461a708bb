// Bench (not a test) of the server on PostgreSQL + S3 (issue 27, acceptance 5), against real processes:
//  1. GET /api/verify?hash= requests/s on a server on PostgreSQL + S3 vs one on SQLite + the filesystem,
//     the same N records signed through each over HTTP, a mix of known hashes and a share of unknown ones
//     (404), the same load generator in interleaved slices, same run (goal ≥ 0.9×: the verify answer cache
//     should make the store nearly free); two more servers split the difference (PostgreSQL + files, SQLite
//     + S3), and each row shows the processor time of its server, PostgreSQL, s3rver and the load generator;
//  2. signs/s of distinct Markdown files at a fixed concurrency on one instance vs two (round-robin), both
//     on the same PostgreSQL + S3 and the same bunker, interleaved in slices; with the processor time of
//     each process (servers, bunker, PostgreSQL, s3rver, this load generator) per configuration.
// PostgreSQL and S3 are the ones DATABASE_URL and S3_BUCKET (+ S3_*, AWS_*) name, else started for the run
// (see stores.mjs). Exits non-zero on an error (a wrong status), never on a missed goal.
//
//   npm run bench:scale-out
//   BENCH_SECONDS=10 BENCH_CONCURRENCY=32 BENCH_RECORDS=100 BENCH_UNKNOWN_SHARE=0.1 node bench/scale-out/run.mjs
//   BENCH_SECONDS=0.5 BENCH_CONCURRENCY=4 BENCH_RECORDS=4 BENCH_SIGN_CONCURRENCY=2 node bench/scale-out/run.mjs   # tiny
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createBenchRun, signFile } from '../server/processes.mjs';
import { cpuSeconds, findPostmaster, findS3Server, LOCAL_STORES_ENV, openSharedStores } from './stores.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100);
const UNKNOWN_SHARE = Number(process.env.BENCH_UNKNOWN_SHARE ?? 0.1);
const SIGN_CONCURRENCY = Number(process.env.BENCH_SIGN_CONCURRENCY ?? 8);
const SIGN_SECONDS = Number(process.env.BENCH_SIGN_SECONDS ?? SECONDS);
const SLICE_MS = 500;
const SIGN_SLICE_MS = Math.min(1000, SIGN_SECONDS * 1000);

const runId = randomBytes(4).toString('hex');
let fileCount = 0;
/** A Markdown file no other call (nor run) produces, with an author. */
function nextMarkdown() {
  fileCount++;
  const label = `Scale-out bench ${runId} file ${fileCount}`;
  return new TextEncoder().encode(`---\nauthor: Bench Author\ntitle: ${label}\n---\n\n# ${label}\n`);
}

/** Run `work` on `concurrency` workers until `ms` elapsed; resolves to how many ran and how long it took. */
async function during(ms, concurrency, work) {
  let count = 0;
  const until = Date.now() + ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (Date.now() < until) {
        await work(worker);
        count++;
      }
    }),
  );
  return { count, ms: performance.now() - start };
}

/** Processor seconds used so far by each of `measured` ([label, pid, with children]); `undefined`: unknown. */
function cpuNow(measured) {
  return Promise.all(
    measured.map(([, pid, children]) => (pid === undefined ? undefined : cpuSeconds(pid, { children }))),
  );
}

/** `label N%` for each of `measured`: processor time in `seconds` of wall time, 100% = one CPU. */
function cpuShares(measured, cpu, seconds) {
  return measured
    .map(
      ([label, pid], j) =>
        `${label} ${pid === undefined ? 'n/a' : `${Math.round((100 * cpu[j]) / seconds)}%`}`,
    )
    .join(', ');
}

/**
 * Keep-alive GET load on several targets, each cycling over its own paths, interleaved in SLICE_MS slices
 * for SECONDS each at CONCURRENCY; every answer's status is checked against the path's. Returns requests/s,
 * the answers' statuses and the processor seconds of the target's `measured` processes per target.
 */
async function verifyLoad(targets) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (port, path, expected, statuses) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode === expected) resolve();
          else reject(new Error(`GET ${path}: status ${res.statusCode}, expected ${expected}`));
        });
      });
      req.on('error', reject);
      req.end();
    });
  const cursors = targets.map(() => 0);
  const totals = targets.map(({ measured }) => ({
    count: 0,
    ms: 0,
    statuses: {},
    cpu: measured.map(() => 0),
  }));
  const slice = (i, ms, statuses) =>
    during(ms, CONCURRENCY, () => {
      const { port, paths } = targets[i];
      const { path, status } = paths[cursors[i]++ % paths.length];
      return get(port, path, status, statuses);
    });
  for (const i of targets.keys()) await slice(i, Math.min(1000, SECONDS * 1000), {}); // warm-up
  for (let round = 0; round < (SECONDS * 1000) / SLICE_MS; round++) {
    for (const i of targets.keys()) {
      const before = await cpuNow(targets[i].measured);
      const { count, ms } = await slice(i, SLICE_MS, totals[i].statuses);
      const after = await cpuNow(targets[i].measured);
      totals[i].count += count;
      totals[i].ms += ms;
      for (const j of targets[i].measured.keys()) totals[i].cpu[j] += (after[j] ?? 0) - (before[j] ?? 0);
    }
  }
  agent.destroy();
  return totals.map(({ count, ms, statuses, cpu }) => ({
    rate: (count / ms) * 1000,
    statuses,
    cpu,
    seconds: ms / 1000,
  }));
}

/** Sign `count` distinct files through the server on `port`, a few at a time; resolves to their hashes. */
async function signMany(port, token, files) {
  const hashes = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < files.length) {
        const index = next++;
        hashes[index] = (await signFile(port, token, `bench-${index}.md`, files[index])).hash;
      }
    }),
  );
  return hashes;
}

const run = createBenchRun();
let stores;
try {
  stores = await openSharedStores();
  const bunker = await run.startBunker();
  const token = randomBytes(16).toString('hex');

  const postmaster = await findPostmaster(Number(new URL(stores.env.DATABASE_URL).port || 5432));
  const s3rver = await findS3Server();

  // --- 1. verify requests/s: PostgreSQL + S3 vs SQLite + filesystem, the same records in each. Two more
  // servers split the difference: PostgreSQL with files on disk (a database of its own, when the bench
  // started the cluster) and SQLite with files in S3 (a prefix of its own: each server sweeps files its
  // store has no record of).
  const pgFilesUrl = await stores.createDatabase('verify_pg_files');
  const verifyConfigurations = [
    { name: 'SQLite + files     ', env: LOCAL_STORES_ENV },
    { name: 'PostgreSQL + S3    ', env: stores.env },
    pgFilesUrl && { name: 'PostgreSQL + files ', env: { ...LOCAL_STORES_ENV, DATABASE_URL: pgFilesUrl } },
    {
      name: 'SQLite + S3        ',
      env: { ...stores.env, DATABASE_URL: '', S3_PREFIX: `${stores.env.S3_PREFIX}-sqlite` },
    },
  ].filter(Boolean);
  const verifyServers = await Promise.all(
    verifyConfigurations.map(({ env }) => run.startServer(bunker, token, env)),
  );
  const files = Array.from({ length: RECORDS }, nextMarkdown);
  const signedHashes = await Promise.all(verifyServers.map(({ port }) => signMany(port, token, files)));
  const hashes = signedHashes[0];
  if (signedHashes.some((other) => other.join() !== hashes.join())) {
    throw new Error('the servers gave different hashes for the same files');
  }
  const unknownCount =
    UNKNOWN_SHARE > 0 ? Math.max(1, Math.round((RECORDS * UNKNOWN_SHARE) / (1 - UNKNOWN_SHARE))) : 0;
  const unknown = Array.from({ length: unknownCount }, () => randomBytes(32).toString('hex'));
  // Unknown hashes spread evenly among the known ones.
  const total = RECORDS + unknownCount;
  const paths = [];
  for (let j = 0, known = 0, missing = 0; j < total; j++) {
    const isUnknown = Math.floor(((j + 1) * unknownCount) / total) > Math.floor((j * unknownCount) / total);
    paths.push(
      isUnknown
        ? { path: `/api/verify?hash=${unknown[missing++]}`, status: 404 }
        : { path: `/api/verify?hash=${hashes[known++]}`, status: 200 },
    );
  }
  for (const { port } of verifyServers) {
    const body = await (await fetch(`http://127.0.0.1:${port}/api/verify?hash=${hashes[0]}`)).json();
    if (body.verified !== true) throw new Error(`a signed record does not verify: ${JSON.stringify(body)}`);
  }
  const verifyTargets = verifyServers.map(({ port, child }) => ({
    port,
    paths,
    measured: [
      ['server', child.pid, false],
      ['PostgreSQL', postmaster, true],
      ['s3rver', s3rver, false],
      ['load generator', process.pid, false],
    ],
  }));
  const verifyLoads = await verifyLoad(verifyTargets);
  const verifyRatio = verifyLoads[1].rate / verifyLoads[0].rate;
  await Promise.all(verifyServers.map(({ child }) => run.stop(child)));

  // --- 2. signs/s: one instance vs two, same PostgreSQL + S3, same bunker ---
  const a = await run.startServer(bunker, token, stores.env);
  const b = await run.startServer(bunker, token, stores.env);
  const measured = [
    ['server A', a.child.pid, false],
    ['server B', b.child.pid, false],
    ['bunker', bunker.child.pid, false],
    ['PostgreSQL', postmaster, true],
    ['s3rver', s3rver, false],
    ['load generator', process.pid, false],
  ];
  const configurations = [
    { name: '1 instance ', servers: [a] },
    { name: '2 instances', servers: [a, b] },
  ];
  const signSlice = async ({ servers }, ms) => {
    let turn = 0;
    return during(ms, SIGN_CONCURRENCY, () =>
      signFile(servers[turn++ % servers.length].port, token, `bench-${turn}.md`, nextMarkdown()),
    );
  };
  for (const configuration of configurations) await signSlice(configuration, SIGN_SLICE_MS); // warm-up
  const signTotals = configurations.map(() => ({ count: 0, ms: 0, cpu: measured.map(() => 0) }));
  for (let round = 0; round < (SIGN_SECONDS * 1000) / SIGN_SLICE_MS; round++) {
    for (const [i, configuration] of configurations.entries()) {
      const before = await cpuNow(measured);
      const { count, ms } = await signSlice(configuration, SIGN_SLICE_MS);
      const after = await cpuNow(measured);
      signTotals[i].count += count;
      signTotals[i].ms += ms;
      for (const j of measured.keys()) signTotals[i].cpu[j] += (after[j] ?? 0) - (before[j] ?? 0);
    }
  }
  const signRates = signTotals.map(({ count, ms }) => (count / ms) * 1000);

  console.log(
    `siegel scale-out bench: Node ${process.versions.node}, ${navigatorCpus()} CPUs, PostgreSQL + S3 ${stores.started ? 'started for the run (private cluster, s3rver)' : 'from DATABASE_URL / S3_*'}`,
  );
  console.log(
    `  verify: ${RECORDS} records + ${unknownCount} unknown hashes (${(100 * (unknownCount / total)).toFixed(0)}% 404), ${SECONDS} s per server in interleaved ${SLICE_MS / 1000} s slices, ${CONCURRENCY} connections`,
  );
  for (const [i, { name }] of verifyConfigurations.entries()) {
    const { rate, statuses, cpu, seconds } = verifyLoads[i];
    const shares = cpuShares(verifyTargets[i].measured, cpu, seconds);
    console.log(
      `  GET /api/verify ${name}: ${Math.round(rate).toString().padStart(7)} req/s  answers ${JSON.stringify(statuses)}; CPU ${shares}`,
    );
  }
  console.log(
    `  ratio PostgreSQL / SQLite: ${verifyRatio.toFixed(2)}× (goal ≥ 0.9×) ${verifyRatio >= 0.9 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  sign: distinct Markdown files, ${SIGN_CONCURRENCY} at a time, ${SIGN_SECONDS} s per configuration in interleaved ${SIGN_SLICE_MS / 1000} s slices, PostgreSQL + S3, one bunker`,
  );
  for (const [i, { name }] of configurations.entries()) {
    const seconds = signTotals[i].ms / 1000;
    const cpu = measured
      .map(
        ([label, pid], j) =>
          `${label} ${pid === undefined ? 'n/a' : `${Math.round((100 * signTotals[i].cpu[j]) / seconds)}%`}`,
      )
      .join(', ');
    console.log(
      `  ${name}: ${signRates[i].toFixed(1).padStart(7)} signs/s (${signTotals[i].count} signs); CPU ${cpu}`,
    );
  }
  console.log(`  ratio 2 instances / 1: ${(signRates[1] / signRates[0]).toFixed(2)}×`);
} finally {
  await run.close();
  await stores?.close();
}

function navigatorCpus() {
  return globalThis.navigator?.hardwareConcurrency ?? '?';
}
