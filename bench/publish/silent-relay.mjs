// Bench (not a test), issue 24: what one silent relay costs a signing run. The same 1 000-page site (the
// sign-site bench's pages) is signed by the built `siegel` CLI twice, each time from a fresh copy and an
// empty cache, with a local key: once with no relay, once with one relay that accepts the connection, reads
// every EVENT and never answers (test/support/relay, `--silent`). The difference is what the relay costs;
// the goal is at most the run's publishing budget (`publishTimeoutMs`, 5 s by default) — before the budget
// it was 15 s per 100 events (150.9 s against ~2 s). Then a re-run of the silent project with nothing to
// sign and every outbox entry due again, once with no relay and once with the silent relay and a 2 s budget
// (test/nostr/publish-budget.test.ts's case; before the budget, 90 s for 600 due events). Run alone or at
// the end of run.mjs:
//
//   npm run build && node bench/publish/silent-relay.mjs
//   BENCH_SILENT_PAGES=200 node bench/publish/silent-relay.mjs
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRelay } from '../../test/support/relay-process.ts';
import { generateSite } from '../sign-site/generate-site.mjs';

const PAGES = Math.max(1, Number(process.env.BENCH_SILENT_PAGES ?? 1000));
const BUDGET_MS = 5_000;
const CLI = fileURLToPath(new URL('../../packages/core/bin/siegel.js', import.meta.url));

/** One `siegel sign` of a fresh copy of `build`, with an empty cache; resolves with its wall time. */
async function sign(root, build, name, relays) {
  const project = join(root, name);
  await cp(build, join(project, 'dist'), { recursive: true });
  const { ms, output } = await run(project, relays);
  if (!output.includes(`${PAGES} signed`)) throw new Error(`not every page was signed:\n${output}`);
  return ms;
}

/** `siegel sign dist` in `project` with `relays` (and more arguments); resolves with its wall time and output. */
async function run(project, relays, more = []) {
  const args = [CLI, 'sign', 'dist', ...relays.flatMap((relay) => ['--relay', relay]), ...more];
  const env = {
    PATH: process.env.PATH ?? '',
    SIEGEL_SECRET_KEY: '9'.repeat(64),
    SITE_URL: 'https://example.com',
  };
  const start = performance.now();
  const output = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.stderr.on('data', (chunk) => {
      text += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`siegel exited ${code}:\n${text}`)),
    );
  });
  return { ms: performance.now() - start, output };
}

const root = await mkdtemp(join(tmpdir(), 'siegel-bench-silent-'));
const relay = await startRelay({ silent: true });
try {
  const build = join(root, 'build');
  await generateSite(build, PAGES);
  const none = await sign(root, build, 'none', []);
  const silent = await sign(root, build, 'silent', [relay.url]);
  const extra = silent - none;
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`${PAGES} pages, one silent relay vs none (siegel sign, local key, fresh cache each):`);
  console.log(`  no relay:          ${seconds(none)}`);
  console.log(
    `  one silent relay:  ${seconds(silent)}  (+${seconds(extra)}; goal ≤ the ${seconds(BUDGET_MS)} budget)`,
  );
  console.log(`  ${extra <= BUDGET_MS + 1_000 ? 'within the budget' : 'OVER THE BUDGET'}`);

  // The silent project again: nothing to sign, every event the silent relay did not answer due again.
  const project = join(root, 'silent');
  const file = join(project, '.sign-outbox.json');
  const outbox = JSON.parse(await readFile(file, 'utf8'));
  for (const entry of outbox.events) entry.nextTry = 0;
  await writeFile(file, JSON.stringify(outbox));
  const bare = await run(project, []);
  const again = await run(project, [relay.url], ['--publish-timeout', '2']);
  if (!again.output.includes(`0 signed, ${PAGES} unchanged`))
    throw new Error(`not a re-run:\n${again.output}`);
  const reExtra = again.ms - bare.ms;
  console.log(
    `re-run, nothing to sign, ${outbox.events.length} events due: no relay ${seconds(bare.ms)}, one silent relay ${seconds(again.ms)}  (+${seconds(reExtra)}; goal ≤ the 2.0 s budget)`,
  );
} finally {
  await relay.stop();
  await rm(root, { recursive: true, force: true });
}
