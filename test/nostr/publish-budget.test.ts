// Issue 24, acceptance 2 and 3: a signing run never loses a publication and never waits on a relay for
// longer than its budget. Real parts: the built `siegel` CLI as a child process (signing with a local key),
// real relay processes (test/support/relay), one of them silent — it accepts the connection, reads every
// EVENT and answers nothing — until SIGUSR1 makes it a working relay. What a silent relay costs a run in
// seconds, next to a run without it, is bench/publish/silent-relay.mjs's figure; here the run says it gave
// up at its budget, ends as soon as it has reported, and a ceiling far above its time catches a hang.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getPublicKey } from 'nostr-tools/pure';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type CliResult, runCli, SIEGEL_CLI } from '../../packages/core/test/support/run-cli.js';
import { eventually } from '../support/eventually.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): silent relays and the publishing budget: 15 s alone, 35 s among parallel files
vi.setConfig({ testTimeout: 120_000 });

const SECRET = '9'.repeat(64);
const PUBKEY = getPublicKey(Uint8Array.from(Buffer.from(SECRET, 'hex')));
const ENV = { SIEGEL_SECRET_KEY: SECRET, SITE_URL: 'https://example.com' };
/** The budget of the 1 000-page run (seconds). */
const RUN_BUDGET_S = 20;

const relays: RunningRelay[] = [];
const roots: string[] = [];
afterAll(async () => {
  await Promise.all(relays.map((relay) => relay.stop()));
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function relay(options: { silent?: boolean } = {}): Promise<RunningRelay> {
  const started = await startRelay(options);
  relays.push(started);
  return started;
}

/** A project with `count` pages in dist/. */
async function project(count: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'siegel-budget-'));
  roots.push(root);
  for (let start = 0; start < count; start += 100) {
    const dir = join(root, 'dist', `part-${start / 100}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, index) =>
        writeFile(
          join(dir, `page-${start + index}.html`),
          `<!doctype html><html><head><title>Page ${start + index}</title></head><body><main><h1>Page ${start + index}</h1><p>Text of page ${start + index}.</p></main></body></html>\n`,
        ),
      ),
    );
  }
  return root;
}

/**
 * `siegel …` in `root` as {@link runCli} runs it, and how long it ran and how long it lived after its last
 * output (ms). A run that has reported and still does not exit is held open by something (nostr-tools'
 * answer timers once kept it alive 15 s past the publishing budget).
 */
async function runTimed(
  args: string[],
  root: string,
): Promise<CliResult & { ms: number; afterOutputMs: number }> {
  const started = performance.now();
  let lastOutput = started;
  const child = spawn(process.execPath, [SIEGEL_CLI, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    lastOutput = performance.now();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    lastOutput = performance.now();
  });
  // 'exit' is when the process ended; 'close' comes once its output is read too.
  const exited = new Promise<number>((resolve) => child.once('exit', () => resolve(performance.now())));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  const exitedAt = await exited;
  return {
    code,
    signal,
    stdout,
    stderr,
    ms: exitedAt - started,
    afterOutputMs: Math.max(0, exitedAt - lastOutput),
  };
}

/** How many of `ids` the relay at `url` holds (asked in slices, as a client would). */
async function heldBy(url: string, ids: string[]): Promise<number> {
  let held = 0;
  for (let start = 0; start < ids.length; start += 200)
    held += (await queryRelay(url, { ids: ids.slice(start, start + 200) })).length;
  return held;
}

async function outboxIds(root: string): Promise<Array<{ id: string; relays: string[] }>> {
  const outbox = JSON.parse(await readFile(join(root, '.sign-outbox.json'), 'utf8')) as {
    events: Array<{ event: { id: string; pubkey: string }; relays: string[] }>;
  };
  return outbox.events.map((entry) => ({ id: entry.event.id, relays: entry.relays }));
}

/** The ids of the events the cache holds: every page signed so far. */
async function signedIds(root: string): Promise<string[]> {
  const cache = JSON.parse(await readFile(join(root, '.sign-cache.json'), 'utf8')) as {
    pages: Record<string, { event: { id: string; pubkey: string } }>;
  };
  const events = Object.values(cache.pages).map((entry) => entry.event);
  for (const event of events) expect(event.pubkey).toBe(PUBKEY);
  return events.map((event) => event.id).sort();
}

/** The ids of every event the run published: the pages' (from the cache) and the site manifest's. */
async function publishedIds(root: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(root, 'dist', 'verify', 'manifest.json'), 'utf8')) as {
    id: string;
    pubkey: string;
  };
  expect(manifest.pubkey).toBe(PUBKEY);
  return [...(await signedIds(root)), manifest.id].sort();
}

// Every run signs one site manifest beside the pages' events and publishes it with them: 1 000 pages
// make 1 001 events.
describe('publishing within the run’s budget (issue 24, acceptance 2)', () => {
  it('1 000 pages, one silent and one healthy relay: the run ends within its budget, the healthy relay holds every event, the rest wait; `siegel publish` delivers them later', async () => {
    const [healthy, silent] = await Promise.all([relay(), relay({ silent: true })]);
    const root = await project(1000);
    // A budget of 20 s, not the default 5 s: among parallel test files on 2 cores the healthy relay once took
    // only 658 of the 1 000 events within 5 s. What is tested is the same: the run waits its budget, no longer.
    const run = await runTimed(
      [
        'sign',
        'dist',
        '--relay',
        healthy.url,
        '--relay',
        silent.url,
        '--publish-timeout',
        String(RUN_BUDGET_S),
      ],
      root,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1000 signed/);
    // The run gave up on the silent relay at its budget, in one wait for all 1 000 events (before the budget,
    // one silent relay held such a run for 15 s per 100 events: 150 s), and exits once it has reported.
    expect(run.stderr).toContain(
      `Siegel: 0 of 1001 events published (${healthy.url}: 1001, ${silent.url}: 0 — no answer within ${RUN_BUDGET_S} s (the run's publishing budget)); 1001 waiting in .sign-outbox.json`,
    );
    // From its report to its exit the run does no work (tens of ms); nostr-tools' timers held it 8-13 s.
    expect(run.afterOutputMs).toBeLessThan(3_000);
    // A ceiling against a hang, several times what the run takes (a few seconds of signing and the 5 s
    // budget); the seconds themselves are bench/publish/silent-relay.mjs's.
    expect(run.ms).toBeLessThan(RUN_BUDGET_S * 1000 + 60_000);
    expect(await signedIds(root)).toHaveLength(1000);
    const ids = await publishedIds(root);
    expect(ids).toHaveLength(1001);
    expect(await heldBy(healthy.url, ids)).toBe(1001);
    const waiting = await outboxIds(root);
    expect(waiting.map((entry) => entry.id).sort()).toEqual(ids);
    for (const entry of waiting) expect(entry.relays).toEqual([silent.url]);
    expect(existsSync(join(root, '.sign-outbox.json.journal'))).toBe(false);

    // The relay answers now: `siegel publish` delivers what waited, and the outbox is gone.
    await silent.answer();
    const publish = await runCli(['publish', 'dist'], root, ENV);
    expect(publish.code, publish.stderr).toBe(0);
    expect(publish.stdout).toContain(`Siegel: 1001 of 1001 events published (${silent.url}: 1001)`);
    expect(await heldBy(silent.url, ids)).toBe(1001);
    expect(existsSync(join(root, '.sign-outbox.json'))).toBe(false);
  }, 120_000);

  it('a re-run with nothing to sign does not wait on a silent relay for longer than its budget', async () => {
    const silent = await relay({ silent: true });
    const root = await project(150);
    const first = await runCli(['sign', 'dist', '--relay', silent.url, '--publish-timeout', '1'], root, ENV);
    expect(first.code, first.stderr).toBe(0);
    expect(await outboxIds(root)).toHaveLength(151);
    // Make every entry due again, as if its retry time had come.
    const file = join(root, '.sign-outbox.json');
    const outbox = JSON.parse(await readFile(file, 'utf8')) as { events: Array<{ nextTry: number }> };
    for (const entry of outbox.events) entry.nextTry = 0;
    await writeFile(file, JSON.stringify(outbox));
    const again = await runTimed(['sign', 'dist', '--relay', silent.url, '--publish-timeout', '2'], root);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/0 signed, 150 unchanged/);
    // Was 90 s for 600 due events before the budget (15 s per 100). Now the run gives up at its budget (2 s),
    // and ends once it has said so: the 15 s answer timers once kept the process alive after the run was done.
    expect(again.stderr).toContain(
      `Siegel: 0 of 151 events published (${silent.url}: 0 — no answer within 2 s (the run's publishing budget)); 151 waiting in .sign-outbox.json`,
    );
    expect(again.afterOutputMs).toBeLessThan(3_000);
    // A ceiling against a hang, several times the run's start-up, reading and 2 s budget.
    expect(again.ms).toBeLessThan(30_000);
  }, 90_000);
});

describe('an interrupted run loses no publication (issue 24, acceptance 3)', () => {
  for (const signal of ['SIGKILL', 'SIGINT', 'SIGTERM'] as const) {
    it(`${signal} while a slow relay holds the publishing: the next run delivers every event`, async () => {
      const silent = await relay({ silent: true });
      const root = await project(300);
      const child = spawn(
        process.execPath,
        [SIEGEL_CLI, 'sign', 'dist', '--relay', silent.url, '--publish-timeout', '120'],
        { cwd: root, env: { PATH: process.env.PATH ?? '', ...ENV }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('close', (_code, got) => resolve(got)),
      );
      // Mid-publish: every page is signed and written, the cache saved (its journal folded and gone), every
      // event sent (to the outbox's journal first), and the run waits for the relay's answers.
      const journal = join(root, '.sign-outbox.json.journal');
      await eventually(async () => {
        const text = existsSync(journal) ? await readFile(journal, 'utf8') : '';
        return (
          text.split('\n').filter(Boolean).length === 301 &&
          existsSync(join(root, '.sign-cache.json')) &&
          !existsSync(join(root, '.sign-cache.json.journal'))
        );
      }, 60_000).catch((error: Error) => {
        throw new Error(`${error.message}: the run did not reach publishing\n${output}`);
      });
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(existsSync(join(root, '.sign-outbox.json'))).toBe(false);

      // The relay works now: the next run signs nothing and sends every event the killed run had sent.
      await silent.answer();
      const next = await runCli(['sign', 'dist', '--relay', silent.url], root, ENV);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toMatch(/0 signed, 300 unchanged/);
      expect(next.stdout).toContain(`Siegel: 301 of 301 events published (${silent.url}: 301)`);
      const ids = await publishedIds(root);
      expect(ids).toHaveLength(301);
      expect(await heldBy(silent.url, ids)).toBe(301);
      expect(existsSync(join(root, '.sign-outbox.json'))).toBe(false);
      expect(existsSync(journal)).toBe(false);
    }, 120_000);
  }
});
