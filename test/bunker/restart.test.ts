import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from 'nostr-tools';
import * as nip19 from 'nostr-tools/nip19';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BunkerProcess, callBunker, runBunkerCli, spawnBunker } from '../support/bunker-process.js';

// Timeouts (docs/testing.md): several bunker starts with scrypt key derivations: 7 s alone, 31 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

const PASSPHRASE = 'restart passphrase 42';
const API_TOKEN = 'restart-api-token-0123456789';
const ADMIN_TOKEN = 'restart-admin-token-0123456789';
const running: BunkerProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.stop()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-e2e-restart-'));
  dirs.push(dir);
  return dir;
}

async function start(dataDir: string, env: Record<string, string> = {}) {
  const bunker = await spawnBunker({
    args: ['--port', '0', '--data-dir', dataDir],
    env: { BUNKER_API_TOKEN: API_TOKEN, BUNKER_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
  });
  running.push(bunker);
  return bunker;
}

async function keys(bunker: BunkerProcess) {
  return (await (await callBunker(bunker.url, 'GET', '/api/keys', { token: API_TOKEN })).json()) as {
    name: string;
    pubkey: string;
    locked: boolean;
  }[];
}

/** Every byte under `dir`, as text, for searching. */
async function everything(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  expect(files.length).toBeGreaterThan(0);
  return (await Promise.all(files.map((f) => readFile(f, 'latin1')))).join('\n');
}

describe('siegel-bunker across restarts', () => {
  it('keeps imported keys locked until unlocked, and never stores the raw secret', async () => {
    const dataDir = await temp();
    const work = await temp();
    const secretKey = generateSecretKey();
    const hex = Buffer.from(secretKey).toString('hex');
    const nsec = nip19.nsecEncode(secretKey);
    await writeFile(join(work, 'passphrase'), `${PASSPHRASE}\n`);

    const added = await runBunkerCli([
      'keys',
      'add',
      'alice',
      '--import',
      nsec,
      '--passphrase-file',
      join(work, 'passphrase'),
      '--data-dir',
      dataDir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(nip19.npubEncode(getPublicKey(secretKey)));
    expect(added.stdout + added.stderr).not.toContain(hex);
    const listed = await runBunkerCli(['keys', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toMatch(/^alice\tnpub1/);

    // First start: locked. Unlock through the admin API, sign, stop.
    let bunker = await start(dataDir);
    expect(await keys(bunker)).toMatchObject([
      { name: 'alice', pubkey: getPublicKey(secretKey), locked: true },
    ]);
    const unlock = await callBunker(bunker.url, 'POST', '/api/keys/alice/unlock', {
      token: ADMIN_TOKEN,
      body: { passphrase: PASSPHRASE },
    });
    expect(unlock.status).toBe(200);
    const res = await callBunker(bunker.url, 'POST', '/api/keys/alice/sign', {
      token: API_TOKEN,
      body: { events: [{ kind: 1, created_at: 1, tags: [], content: 'after unlock' }] },
    });
    const [event] = ((await res.json()) as { events: Event[] }).events;
    expect(event && verifyEvent(event)).toBe(true);
    expect(await bunker.stop()).toBe(0);
    running.pop();

    // Second start: locked again.
    bunker = await start(dataDir);
    expect(await keys(bunker)).toMatchObject([{ name: 'alice', locked: true }]);
    await bunker.stop();
    running.pop();

    // Third start with BUNKER_PASSPHRASE_FILE: unlocked at start.
    bunker = await start(dataDir, { BUNKER_PASSPHRASE_FILE: join(work, 'passphrase') });
    expect(await keys(bunker)).toMatchObject([{ name: 'alice', locked: false }]);
    expect(bunker.output()).toMatch(/unlocked with the start passphrase: alice/);
    await bunker.stop();

    const stored = await everything(dataDir);
    expect(stored).toContain('ncryptsec1');
    expect(stored.toLowerCase()).not.toContain(hex);
    expect(stored).not.toContain(nsec);
    expect(stored).not.toContain(PASSPHRASE);
    expect(bunker.output()).not.toContain(hex);
    expect(bunker.output()).not.toContain(PASSPHRASE);
    // The audit log recorded the signature, without content.
    const audit = await readFile(join(dataDir, 'audit.log'), 'utf8');
    expect(audit).toContain(event?.id);
    expect(audit).not.toContain('after unlock');
  });

  it('auto-unlocks with BUNKER_PASSPHRASE only the keys it opens, and reports the rest', async () => {
    const dataDir = await temp();
    const work = await temp();
    await writeFile(join(work, 'one'), PASSPHRASE);
    await writeFile(join(work, 'two'), 'a different passphrase');
    for (const [name, file] of [
      ['one', 'one'],
      ['two', 'two'],
    ] as const) {
      const r = await runBunkerCli(
        ['keys', 'add', name, '--generate', '--passphrase-file', join(work, file)],
        { BUNKER_DATA_DIR: dataDir },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const bunker = await start(dataDir, { BUNKER_PASSPHRASE: PASSPHRASE });
    expect(await keys(bunker)).toMatchObject([
      { name: 'one', locked: false },
      { name: 'two', locked: true },
    ]);
    expect(bunker.output()).toMatch(/does not open: two/);
  });

  it('locks an unlocked key after the idle period given by --auto-lock', async () => {
    const dataDir = await temp();
    const work = await temp();
    await writeFile(join(work, 'p'), PASSPHRASE);
    const r = await runBunkerCli([
      'keys',
      'add',
      'idle',
      '--generate',
      '--passphrase-file',
      join(work, 'p'),
      '--data-dir',
      dataDir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const bunker = await spawnBunker({
      args: ['--port', '0', '--data-dir', dataDir, '--auto-lock', '0.05'], // 3 s
      env: { BUNKER_API_TOKEN: API_TOKEN, BUNKER_ADMIN_TOKEN: ADMIN_TOKEN, BUNKER_PASSPHRASE: PASSPHRASE },
    });
    running.push(bunker);
    expect(await keys(bunker)).toMatchObject([{ name: 'idle', locked: false }]);
    await expect
      .poll(async () => (await keys(bunker))[0]?.locked, { timeout: 10_000, interval: 200 })
      .toBe(true);
    expect(bunker.output()).toMatch(/auto-locked/);
  });

  it('refuses to start without tokens, with a clear message', async () => {
    const result = await runBunkerCli(['start', '--port', '0', '--data-dir', await temp()]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/BUNKER_API_TOKEN and BUNKER_ADMIN_TOKEN not set/);
    expect(result.stderr).toMatch(/--dev/);
  });

  it('starts with --dev: prints generated tokens once, creates a `default` key, signs, and cleans up', async () => {
    const bunker = await spawnBunker({ args: ['--dev', '--port', '0'] });
    running.push(bunker);
    const token = /BUNKER_API_TOKEN=(\S+)/.exec(bunker.output())?.[1];
    expect(bunker.ready).toMatchObject({ apiToken: token, keyName: 'default', keys: ['default'] });
    expect(bunker.ready.pubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(bunker.output().match(new RegExp(token ?? '-', 'g'))).toHaveLength(2); // the token line and the ready line
    const dir = /data directory: (\S+) \(deleted on exit\)/.exec(bunker.output())?.[1];
    expect(token).toBeDefined();
    const res = await callBunker(bunker.url, 'POST', '/api/keys/default/sign', {
      token: token ?? null,
      body: { events: [{ kind: 1, created_at: 1, tags: [], content: 'dev' }] },
    });
    expect(res.status).toBe(200);
    expect(await bunker.stop()).toBe(0);
    await expect(readdir(dir ?? '/nonexistent')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
