// Bench (not a test) of issue 22, M3: sign latency of the file server with one silent relay among its
// relays, against the same with healthy relays only, same run. Real processes: a bunker, the built server,
// relay processes (test/support/relay/relay-server.mjs; `--silent` reads every EVENT and never answers).
// SIGNS small Markdown files are signed by CLIENTS clients at once (each signs one after another); prints the
// median, 95th percentile and slowest answer of each case, the 503s, and the ratio of the medians
// (goal ≤ 2×). Before issue 22: 10 × 503 and a median of 10.2 s against 504 ms.
//
//   npm run build && node bench/server/relays.mjs
//   BENCH_SIGNS=60 BENCH_CLIENTS=20 BENCH_ROUNDS=3 node bench/server/relays.mjs
//
// Exits 1 when an answer is not 200 (a 503 included): the bench then measured something else.
import { randomBytes } from 'node:crypto';
import { createBenchRun } from './processes.mjs';

const SIGNS = Number(process.env.BENCH_SIGNS ?? 60);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

/** Sign SIGNS distinct Markdown files from CLIENTS clients; resolves to every answer's status and time. */
async function signAll(port, token, label) {
  const answers = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < SIGNS) {
        const i = next++;
        const form = new FormData();
        const text = `---\nauthor: Bench Author\ntitle: ${label} ${i}\n---\n# ${label} ${i}\n\n${randomBytes(16).toString('hex')}\n`;
        form.append('file', new Blob([text]), `${label}-${i}.md`);
        const started = performance.now();
        const response = await fetch(`http://127.0.0.1:${port}/api/sign-image-v2`, {
          method: 'POST',
          body: form,
          headers: { Authorization: `Bearer ${token}` },
        });
        const body = await response.json();
        answers.push({
          status: response.status,
          ms: performance.now() - started,
          publishedTo: body.published_to,
        });
      }
    }),
  );
  return answers;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summarize(answers) {
  const times = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const statuses = {};
  for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), max: times.at(-1), statuses };
}

const run = createBenchRun();
let failed = false;
try {
  const bunker = await run.startBunker();
  const [healthyA, healthyB, silent] = await Promise.all([
    run.startRelay(),
    run.startRelay(),
    run.startRelay(['--silent']),
  ]);
  const token = randomBytes(16).toString('hex');
  const cases = [
    { name: 'healthy relays', relays: [healthyA.url, healthyB.url] },
    { name: 'one silent relay', relays: [healthyA.url, silent.url] },
  ];
  const results = cases.map(() => []);
  // Rounds alternate the two cases, each on a fresh server, so a change in the machine's load hits both.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { relays }] of cases.entries()) {
      const server = await run.startServer(bunker, token, { SIEGEL_RELAYS: relays.join(',') });
      results[i].push(...(await signAll(server.port, token, `r${round}c${i}`)));
    }
  }
  const [healthy, slow] = results.map(summarize);
  const ratio = slow.median / healthy.median;
  const ms = (value) => `${Math.round(value)} ms`;
  console.log(
    `siegel server relay bench: Node ${process.versions.node}, ${SIGNS} Markdown signs from ${CLIENTS} clients, ${ROUNDS} round(s) per case`,
  );
  for (const [i, summary] of [healthy, slow].entries()) {
    console.log(
      `  ${cases[i].name.padEnd(17)}: median ${ms(summary.median)}, p95 ${ms(summary.p95)}, slowest ${ms(summary.max)}; answers ${JSON.stringify(summary.statuses)}`,
    );
  }
  console.log(`  ratio of the medians: ${ratio.toFixed(2)}× (goal ≤ 2×) ${ratio <= 2 ? 'met' : 'NOT met'}`);
  const listed = results[1].filter((answer) => answer.publishedTo?.includes(healthyA.url)).length;
  console.log(
    `  with the silent relay, published_to named the healthy relay in ${listed} of ${results[1].length} answers`,
  );
  failed = results.flat().some((answer) => answer.status !== 200);
} finally {
  await run.close();
}
if (failed) {
  console.error('relay bench: some answers were not 200');
  process.exit(1);
}
