// Bench (not a test), issue 22 acceptance 1: what strangers flooding the bunker's NIP-46 keys cost its HTTP
// API. A real `siegel-bunker` with NIP-46 on a real relay process; the HTTP API is probed (`GET /api/keys`
// every 50 ms) and a 200-page site signed (`signSite`, cold) twice in the same run: once quiet, once while
// 3 000 properly signed, encrypted stranger requests from 50 keys go through the relay — half to an
// established connection's remote-signer key, half to an unused (leaked) URI's. Prints both side by side
// with their ratios, and what the flood cost the bunker by its own counters.
//
//   node bench/nip46-flood/run.mjs                  (after npm run build)
//   BENCH_PAGES=20 BENCH_FLOOD=300 node bench/nip46-flood/run.mjs
//
// Goals: the probe's worst latency during the flood ≤ 500 ms; the signing run during the flood ≤ 2× quiet.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signSite } from '../../packages/core/dist/index.js';
import { bunkerEnv, callBunker, startBunker } from '../../test/support/bunker-process.ts';
import {
  answered,
  makeStrangerFlood,
  nip46Request,
  probeHttp,
  sendFlood,
} from '../../test/support/nip46-flood.ts';
import { generateSite } from '../sign-site/generate-site.mjs';

const PAGES = Number(process.env.BENCH_PAGES ?? 200);
const FLOOD = Number(process.env.BENCH_FLOOD ?? 3000);
const RATE = Number(process.env.BENCH_FLOOD_RATE ?? 250);
const SITE = 'https://example.com';
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The loopback relay of the tests, in its own process. */
async function startRelay() {
  const script = fileURLToPath(new URL('../../test/support/relay/relay-server.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /^SIEGEL_RELAY_READY (\{.*\})$/m.exec(out);
      if (match) resolve(JSON.parse(match[1]).url);
    });
    child.once('exit', () => reject(new Error(`the relay exited:\n${out}`)));
  });
  return { url, stop: () => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')) };
}

async function stats(bunker) {
  return (await callBunker(bunker.url, 'GET', '/api/nip46/stats', { token: bunker.adminToken })).json();
}

async function mint(bunker) {
  const res = await callBunker(bunker.url, 'POST', '/api/nip46/uri', {
    token: bunker.adminToken,
    body: { key: 'default' },
  });
  const { uri } = await res.json();
  const url = new URL(uri.replace('bunker://', 'https://'));
  return { pubkey: url.hostname, secret: url.searchParams.get('secret') };
}

const root = await mkdtemp(join(tmpdir(), 'siegel-bench-flood-'));
const relay = await startRelay();
const bunker = await startBunker({ args: ['--relay', relay.url] });
try {
  const build = join(root, 'build');
  await generateSite(build, PAGES, 3);
  /** A cold signing run of the site while the HTTP API is probed; seconds and the probe's latencies. */
  const measure = async (name) => {
    const dir = join(root, name);
    await cp(build, dir, { recursive: true });
    const probe = probeHttp(`${bunker.url}/api/keys`, bunker.apiToken);
    const start = performance.now();
    const summary = await signSite(dir, {
      site: SITE,
      cacheFile: join(root, `${name}-cache`, '.sign-cache.json'),
      logger: quiet,
      env: bunkerEnv(bunker),
    });
    const seconds = (performance.now() - start) / 1000;
    if (summary.signed !== PAGES) throw new Error(`${name}: ${summary.signed} of ${PAGES} pages signed`);
    return { seconds, probe };
  };

  // A first run warms the bunker and this process up (JIT, connections), so that quiet is not the cold one.
  await (await measure('warm-up')).probe.stop();
  const calm = await measure('quiet');
  const calmLatencies = await calm.probe.stop();

  // A client connected before the flood (its remote-signer key public on the relay) and a leaked URI.
  const known = await mint(bunker);
  const client = (await import('nostr-tools/pure')).generateSecretKey();
  const connect = await nip46Request(client, known.pubkey, {
    id: '1',
    method: 'connect',
    params: [known.pubkey, known.secret],
  });
  if (!(await answered(relay.url, connect, known.pubkey)))
    throw new Error('the known client did not connect');
  const leaked = await mint(bunker);
  const flood = await makeStrangerFlood({
    targets: [known.pubkey, leaked.pubkey],
    count: FLOOD,
    authors: 50,
  });
  const before = await stats(bunker);

  const sending = sendFlood(relay.url, flood.events, { perSecond: RATE });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const loud = await measure('flood');
  const { started } = await sending;
  // The probe keeps going until the bunker has received the whole flood.
  for (let i = 0; i < 240 && (await stats(bunker)).received - before.received < FLOOD; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const floodSeconds = (performance.now() - started) / 1000;
  const loudLatencies = await loud.probe.stop();
  const after = await stats(bunker);

  const worst = (latencies) => Math.max(...latencies);
  const row = (label, a, b, unit, digits) =>
    console.log(
      `  ${label.padEnd(30)} ${a.toFixed(digits).padStart(8)} ${unit}  ${b.toFixed(digits).padStart(8)} ${unit}   ${(b / a).toFixed(2)}×`,
    );
  console.log(`NIP-46 flood against the HTTP API (${availableParallelism()} CPUs), same run:`);
  console.log(`  ${''.padEnd(30)} ${'quiet'.padStart(11)} ${'flood'.padStart(11)}   ratio`);
  row(`signSite, ${PAGES} pages`, calm.seconds, loud.seconds, 's ', 2);
  row('HTTP probe, worst latency', worst(calmLatencies), worst(loudLatencies), 'ms', 0);
  console.log(
    `  flood: ${FLOOD} stranger requests from 50 keys in ${floodSeconds.toFixed(1)} s; the bunker received ${after.received - before.received}, checked ${after.signatureChecks.strangers - before.signatureChecks.strangers} signatures and decrypted ${after.decryptions.strangers - before.decryptions.strangers} (budget: ${after.budget.global.burst} + ${after.budget.global.perSecond}/s, ${after.budget.perUri} per URI), dropped ${after.dropped.stranger - before.dropped.stranger} unread and ${after.dropped.overBudget - before.dropped.overBudget} over budget, replied to ${after.replies.strangers - before.replies.strangers} strangers; NIP-46 on thread ${after.threadId}, HTTP on ${after.httpThreadId}`,
  );
  console.log(
    `  goals: worst probe ≤ 500 ms (${worst(loudLatencies) <= 500 ? 'met' : 'missed'}), signing ≤ 2× quiet (${loud.seconds / calm.seconds <= 2 ? 'met' : 'missed'})`,
  );
} finally {
  await bunker.stop();
  await relay.stop();
  await rm(root, { recursive: true, force: true });
}
