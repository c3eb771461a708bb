// Bench (not a test): events/s signed by a real `siegel-bunker` process over HTTP, in batches of 1 000 (BENCH_BATCH),
// against nostr-tools' `finalizeEvent` in this process (its pure-JS default), in the same run.
//
//   npm run bench:bunker                 # 20 000 events each way
//   BENCH_EVENTS=50000 npm run bench:bunker
//   BENCH_EVENTS=100 BENCH_BATCH=50 node bench/bunker/run.mjs   # tiny (the bench smoke test), after a build
//
// Goal (issue 2): HTTP ≥ 3× in-process finalizeEvent.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finalizeEvent, generateSecretKey, verifyEvent } from 'nostr-tools';

const BATCH = Math.max(1, Number(process.env.BENCH_BATCH ?? 1000));
const WARM_UP = Math.min(500, BATCH);
const EVENTS = Math.max(BATCH, Math.round(Number(process.env.BENCH_EVENTS ?? 20_000) / BATCH) * BATCH);
const CLI = fileURLToPath(new URL('../../packages/bunker/dist/cli.js', import.meta.url));

/** A NIP-94 page event template like the ones `@siegel/core` sends. */
function template(i) {
  const hash = randomBytes(32).toString('hex');
  return {
    kind: 1063,
    created_at: 1_700_000_000 + i,
    tags: [
      ['url', `https://example.com/posts/${i}/`],
      ['m', 'text/html'],
      ['x', hash],
      ['ox', hash],
      ['summary', 'A page of the benchmark site, with a description of typical length.'],
      ['alt', `Post number ${i}`],
    ],
    content: `Post number ${i}`,
  };
}

function rate(events, ms) {
  return Math.round((events / ms) * 1000);
}

async function benchInProcess(templates) {
  const secretKey = generateSecretKey();
  for (const t of templates.slice(0, WARM_UP)) finalizeEvent(t, secretKey); // warm-up
  const start = performance.now();
  for (const t of templates) finalizeEvent(t, secretKey);
  return performance.now() - start;
}

/** For context: the bunker's own engine (libsecp256k1 in WebAssembly) in this process, no HTTP. */
async function benchEngineInProcess(templates) {
  const { loadSigningEngine } = await import('../../packages/bunker/dist/index.js');
  const engine = await loadSigningEngine();
  const secretKey = engine.generateSecretKey();
  for (const t of templates.slice(0, WARM_UP)) engine.signEvent(t, secretKey); // warm-up
  const start = performance.now();
  for (const t of templates) engine.signEvent(t, secretKey);
  return { ms: performance.now() - start, engine: engine.name };
}

async function startBunkerProcess(dataDir, apiToken, adminToken) {
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data-dir', dataDir], {
    env: {
      ...process.env,
      BUNKER_API_TOKEN: apiToken,
      BUNKER_ADMIN_TOKEN: adminToken,
      BUNKER_PASSPHRASE: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /^SIEGEL_BUNKER_READY (\{.*\})$/m.exec(out);
      if (match) resolve(JSON.parse(match[1]).url);
    });
    child.once('exit', (code) => reject(new Error(`siegel-bunker exited with ${code}`)));
  });
  return { url, child, engine: /signing engine: (\w+)/.exec(out)?.[1] ?? '?' };
}

async function benchHttp(templates) {
  const dataDir = await mkdtemp(join(tmpdir(), 'siegel-bench-bunker-'));
  const apiToken = randomBytes(24).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const bunker = await startBunkerProcess(dataDir, apiToken, adminToken);
  try {
    const created = await fetch(`${bunker.url}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', generate: true, passphrase: 'bench passphrase' }),
    });
    if (created.status !== 201) throw new Error(`creating the key failed: ${created.status}`);
    const sign = async (batch) => {
      const res = await fetch(`${bunker.url}/api/keys/bench/sign`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: batch }),
      });
      if (res.status !== 200) throw new Error(`signing failed: ${res.status} ${await res.text()}`);
      return (await res.json()).events;
    };
    await sign(templates.slice(0, BATCH)); // warm-up
    const start = performance.now();
    let last;
    for (let i = 0; i < templates.length; i += BATCH) last = await sign(templates.slice(i, i + BATCH));
    const ms = performance.now() - start;
    // Spot check outside the timing: the last batch verifies.
    if (!last.every((event) => verifyEvent(event))) throw new Error('a signed event does not verify');
    return { ms, engine: bunker.engine };
  } finally {
    bunker.child.kill('SIGTERM');
    await new Promise((resolve) => bunker.child.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

// Separate copies: nostr-tools' finalizeEvent writes id, pubkey and sig into the template it is given.
const templates = Array.from({ length: EVENTS }, (_, i) => template(i));
const inProcessMs = await benchInProcess(structuredClone(templates));
const http = await benchHttp(templates);
const engine = await benchEngineInProcess(templates);
const inProcess = rate(EVENTS, inProcessMs);
const overHttp = rate(EVENTS, http.ms);
const ratio = overHttp / inProcess;

const rows = [
  ['nostr-tools finalizeEvent, in process (pure JS)', inProcess],
  [`siegel-bunker over HTTP, batches of ${BATCH} (${http.engine})`, overHttp],
  [`for context: the bunker's engine in process (${engine.engine})`, rate(EVENTS, engine.ms)],
];
console.log(`siegel-bunker bench: ${EVENTS} events each, Node ${process.versions.node}`);
for (const [label, value] of rows) console.log(`  ${label.padEnd(52)} ${String(value).padStart(7)} events/s`);
console.log(
  `  ratio HTTP / finalizeEvent: ${ratio.toFixed(2)}× (goal ≥ 3×) ${ratio >= 3 ? 'met' : 'NOT met'}`,
);
