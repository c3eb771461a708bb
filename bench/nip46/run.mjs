// Bench (not a test), issue 13 acceptance 6: N pages (default 1 000) signed through NIP-46 — an independent
// remote signer (NDK's NDKNip46Backend, its own process) over a loopback relay process — against the same
// pages signed through the HTTP bunker (`siegel-bunker`, its own process), in the same run. Both are cold
// runs of `signSite` (empty cache, unsigned build) in this process; the NIP-46 figure includes the first
// `connect` (a fresh client key). Prints pages/s for both and their ratio.
//
//   npm run bench:nip46
//   BENCH_PAGES=200 npm run bench:nip46
//
// NIP-46 signs one event per request and every request is an encrypted, signed Nostr event that the relay
// checks and forwards, and the signer decrypts, checks, signs and answers the same way: four Schnorr
// signatures and four verifications per page across three processes, against one signature per page in a
// batch of 500 over HTTP. The gap is the protocol's, not a bug; a second run of an unchanged site makes no
// request at all with either signer.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { signSite } from '../../packages/core/dist/index.js';
import { bunkerEnv, startBunker } from '../../test/support/bunker-process.ts';
import { startNip46Signer } from '../../test/support/nip46-signer-process.ts';
import { startRelay } from '../../test/support/relay-process.ts';
import { generateSite } from '../sign-site/generate-site.mjs';

const PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const SITE = 'https://example.com';
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

const root = await mkdtemp(join(tmpdir(), 'siegel-bench-nip46-'));
const bunker = await startBunker();
const relay = await startRelay();
const remote = await startNip46Signer({ relay: relay.url });
try {
  const build = join(root, 'build');
  await generateSite(build, PAGES, 3);
  const run = async (name, options) => {
    const dir = join(root, name);
    await cp(build, dir, { recursive: true });
    const start = performance.now();
    const summary = await signSite(dir, {
      site: SITE,
      cacheFile: join(root, `${name}-cache`, '.sign-cache.json'),
      logger: quiet,
      ...options,
    });
    const seconds = (performance.now() - start) / 1000;
    if (summary.signed !== PAGES) throw new Error(`${name}: ${summary.signed} of ${PAGES} pages signed`);
    return seconds;
  };
  const http = await run('http', { env: bunkerEnv(bunker) });
  const nip46 = await run('nip46', { signer: remote.uri });
  const signRequests = remote.requests().filter((request) => request.method === 'sign_event').length;
  const rate = (seconds) => (PAGES / seconds).toFixed(0);
  console.log(`${PAGES} pages (cold runs, ${availableParallelism()} CPUs), same run:`);
  console.log(`  HTTP bunker      ${http.toFixed(2)} s   ${rate(http)} pages/s`);
  console.log(
    `  NIP-46 (relay)   ${nip46.toFixed(2)} s   ${rate(nip46)} pages/s   (${signRequests} sign_event requests, 16 in flight)`,
  );
  console.log(`  NIP-46 takes ${(nip46 / http).toFixed(1)}× the HTTP bunker's time`);
} finally {
  await remote.stop();
  await relay.stop();
  await bunker.stop();
  await rm(root, { recursive: true, force: true });
}
