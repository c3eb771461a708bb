import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { runSiegel, SIEGEL_CLI } from './support.js';

// Timeouts (docs/testing.md): a kill -9 mid-run and a rerun: 23 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

const PAGES = 300;
const BATCH = 10;
const KILL_AT_REQUEST = 6;

let bunker: RunningBunker;
let proxy: CountingProxy;
let root: string;

beforeAll(async () => {
  bunker = await useBunker();
  proxy = await startCountingProxy(bunker.url);
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-crash-'));
  await generateSite(join(root, 'dist'), PAGES, 11);
  const env = {
    BUNKER_URL: proxy.url,
    BUNKER_API_TOKEN: bunker.apiToken,
    BUNKER_KEY_NAME: bunker.keyName,
    SITE_URL: 'https://example.com',
    SIEGEL_BATCH_SIZE: String(BATCH),
  };
  await writeFile(
    join(root, '.env'),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
});

afterAll(async () => {
  await proxy?.close();
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('crash safety (issue 3, acceptance 4)', () => {
  it('a run killed with SIGKILL mid-batch, then rerun: every page signed, at most one batch re-signed', async () => {
    const child = spawn(process.execPath, [SIEGEL_CLI, 'sign'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
      stdio: 'ignore',
    });
    let held = 0;
    proxy.reset();
    proxy.onRequest = (request) => {
      if (request.events === 0) return undefined;
      if (proxy.signRequests() < KILL_AT_REQUEST) return undefined;
      // The next batch is on the wire: kill the CLI now and never answer.
      held += request.events;
      child.kill('SIGKILL');
      return false;
    };
    const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, sig) => resolve(sig)),
    );
    expect(signal).toBe('SIGKILL');
    proxy.onRequest = undefined;
    const signedBeforeKill = proxy.signedEvents() - held;
    expect(signedBeforeKill).toBe((KILL_AT_REQUEST - 1) * BATCH);
    // The killed run was writing verify pages (in place, under the marker): it left the marker behind.
    expect(await readdir(join(root, 'dist', 'verify'))).toContain('.siegel-writing');

    proxy.reset();
    const rerun = await runSiegel(['sign'], { cwd: root });
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    // Page events only: the rerun also signs the site manifest (one event, not a page's).
    const resigned = proxy.signedEvents(1063);
    expect(proxy.signedEvents() - resigned).toBe(1);
    // Every signature the bunker made before the kill that did not survive is signed again: at most one batch.
    const wasted = signedBeforeKill + resigned - PAGES;
    const counts = `signed before the kill ${signedBeforeKill}, re-signed ${resigned}`;
    expect(wasted, counts).toBeGreaterThanOrEqual(0);
    expect(wasted, counts).toBeLessThanOrEqual(BATCH);

    const report = await verifySite(join(root, 'dist'));
    expect(report).toMatchObject({ ok: true, valid: PAGES, invalid: 0, unsigned: 0 });
    const cache = JSON.parse(await readFile(join(root, '.sign-cache.json'), 'utf8'));
    expect(Object.keys(cache.pages)).toHaveLength(PAGES);
    // Every page's verify page is complete too.
    for (const page of report.pages) {
      const verifyPage = await readFile(
        join(root, 'dist', 'verify', page.found.eventId as string, 'index.html'),
        'utf8',
      );
      expect(verifyPage).toContain(page.found.eventId as string);
    }
    const leftovers = (await readdir(root, { recursive: true })).filter((name) =>
      /\.(tmp|journal)$/.test(String(name)),
    );
    expect(leftovers).toEqual([]);
    expect(await readdir(join(root, 'dist', 'verify'))).not.toContain('.siegel-writing');

    // And a third run has nothing left to do.
    proxy.reset();
    const third = await runSiegel(['sign'], { cwd: root });
    expect(third.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    expect(proxy.signRequests()).toBe(0);
  });
});
