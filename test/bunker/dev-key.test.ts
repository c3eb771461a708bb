// Issue 10: "on a `--dev` bunker (and the demo) the dashboard's Lock button locks the key for good, since
// its passphrase is never shown". The throwaway key of a `--dev` bunker without `--data-dir` now refuses to
// be locked (409 `key_not_lockable`), by the API, the dashboard and auto-lock; a `--dev` key whose
// passphrase was printed (`--data-dir`) or given (`BUNKER_PASSPHRASE`) locks as any key.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nip49 from 'nostr-tools/nip49';
import { generateSecretKey } from 'nostr-tools/pure';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BunkerProcess, callBunker, spawnBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';

// Timeouts (docs/testing.md): development bunker starts and auto-lock: 9 s among parallel files
vi.setConfig({ testTimeout: 45_000 });

const running: BunkerProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.stop()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function dev(args: string[] = [], env: Record<string, string> = {}) {
  const bunker = await spawnBunker({ args: ['--dev', '--port', '0', ...args], env });
  running.push(bunker);
  return {
    bunker,
    url: bunker.url,
    apiToken: String(bunker.ready.apiToken),
    adminToken: String(bunker.ready.adminToken),
  };
}

async function isLocked(url: string, token: string, name = 'default'): Promise<boolean | undefined> {
  const keys = (await (await callBunker(url, 'GET', '/api/keys', { token })).json()) as {
    name: string;
    locked: boolean;
  }[];
  return keys.find((k) => k.name === name)?.locked;
}

describe('the key of a --dev bunker', () => {
  it('refuses to be locked when its passphrase was never shown, and keeps signing', async () => {
    const { url, apiToken, adminToken } = await dev();
    const res = await callBunker(url, 'POST', '/api/keys/default/lock', { token: adminToken });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('key_not_lockable');
    expect(body.error.message).toContain('`default`');
    expect(body.error.message).toContain('passphrase was never shown');
    expect(await isLocked(url, apiToken)).toBe(false);
    const signed = await callBunker(url, 'POST', '/api/keys/default/sign', {
      token: apiToken,
      body: { events: [{ kind: 1, created_at: 1, tags: [], content: 'still unlocked' }] },
    });
    expect(signed.status).toBe(200);
  });

  it('is never auto-locked, and says so at start', async () => {
    const { bunker, url, apiToken, adminToken } = await dev(['--auto-lock', '0.002']); // 120 ms
    expect(bunker.output()).toMatch(/`default` is never auto-locked/);
    // A key that may be locked, added after `default` was unlocked: once auto-lock has locked it, auto-lock
    // has also had its chance at `default` (idle longer). Auto-lock runs in the bunker process: polled.
    const created = await callBunker(url, 'POST', '/api/keys', {
      token: adminToken,
      // NIP-49 with log N 10 and its own passphrase: cheap to open (the bunker keeps an import's cost).
      body: {
        name: 'lockable',
        import: nip49.encrypt(generateSecretKey(), 'cheap', 10),
        passphrase: 'cheap',
      },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: 'lockable', locked: false });
    await eventually(async () => (await isLocked(url, apiToken, 'lockable')) === true, 15_000, 50);
    expect(await isLocked(url, apiToken)).toBe(false);
  });

  it('locks as any key when its passphrase was printed (--data-dir), and that passphrase unlocks it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'siegel-e2e-dev-key-'));
    dirs.push(dataDir);
    const { bunker, url, apiToken, adminToken } = await dev(['--data-dir', dataDir]);
    const passphrase = /BUNKER_PASSPHRASE=(\S+)/.exec(bunker.output())?.[1];
    expect(passphrase).toBeTruthy();
    expect((await callBunker(url, 'POST', '/api/keys/default/lock', { token: adminToken })).status).toBe(200);
    expect(await isLocked(url, apiToken)).toBe(true);
    const unlocked = await callBunker(url, 'POST', '/api/keys/default/unlock', {
      token: adminToken,
      body: { passphrase },
    });
    expect(unlocked.status).toBe(200);
  });

  it('locks as any key when the passphrase was given (BUNKER_PASSPHRASE)', async () => {
    const { url, apiToken, adminToken } = await dev([], { BUNKER_PASSPHRASE: 'given dev passphrase' });
    expect((await callBunker(url, 'POST', '/api/keys/default/lock', { token: adminToken })).status).toBe(200);
    expect(await isLocked(url, apiToken)).toBe(true);
  });
});
