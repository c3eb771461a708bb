import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as nip19 from 'nostr-tools/nip19';
import * as nip49 from 'nostr-tools/nip49';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it, vi } from 'vitest';
import { BunkerError, KeyStore, loadSigningEngine, openAuditLog } from '../src/index.js';
import { cheapNcryptsec, openStore, PASSPHRASE, tempDir, template } from './helpers.js';

// Timeouts (docs/testing.md): NIP-49 scrypt key derivations (log N 16): seconds of CPU each, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof BunkerError ? error.code : String(error);
  }
  return undefined;
}

describe('KeyStore', () => {
  it('keeps an imported nsec across a restart, locked, and never writes the raw secret', async () => {
    const dataDir = await tempDir();
    const engine = await loadSigningEngine();
    const secretKey = generateSecretKey();
    const nsec = nip19.nsecEncode(secretKey);
    const first = await KeyStore.open({ dataDir, engine });
    const created = await first.create('imported', { import: nsec, passphrase: PASSPHRASE });
    expect(created).toMatchObject({ name: 'imported', pubkey: getPublicKey(secretKey), locked: false });
    first.close();

    const files = await allFiles(dataDir);
    expect(files.map((f) => f.slice(dataDir.length))).toEqual(['/keys/imported.json']);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain(Buffer.from(secretKey).toString('hex'));
      expect(text).not.toContain(nsec);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }

    const second = await KeyStore.open({ dataDir, engine });
    expect(second.list()).toEqual([{ ...created, locked: true }]);
    await expect(second.sign('imported', [template()])).rejects.toMatchObject({ code: 'key_locked' });
    second.unlock('imported', PASSPHRASE);
    const [event] = await second.sign('imported', [template()]);
    expect(event?.pubkey).toBe(getPublicKey(secretKey));
  });

  // Regression: auto-unlock at start (unlockAll) skipped the pubkey check that unlock() makes.
  it('never unlocks a key file whose pubkey does not match its secret, by unlock() or at start', async () => {
    const dataDir = await tempDir();
    const engine = await loadSigningEngine();
    const first = await KeyStore.open({ dataDir, engine });
    await first.create('swapped', { passphrase: PASSPHRASE });
    first.close();
    const file = join(dataDir, 'keys', 'swapped.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...stored, pubkey: getPublicKey(generateSecretKey()) }), {
      mode: 0o600,
    });

    const second = await KeyStore.open({ dataDir, engine });
    expect(codeOf(() => second.unlock('swapped', PASSPHRASE))).toBe('internal_error');
    expect(second.unlockAll(PASSPHRASE)).toEqual({ unlocked: [], failed: ['swapped'] });
    expect(second.list()[0]?.locked).toBe(true);
    await expect(second.sign('swapped', [template()])).rejects.toMatchObject({ code: 'key_locked' });
  });

  it('imports an ncryptsec with its own passphrase and refuses the wrong one', async () => {
    const store = await openStore();
    const secretKey = generateSecretKey();
    const ncryptsec = nip49.encrypt(secretKey, 'the old passphrase', 10);
    await expect(store.create('x', { import: ncryptsec, passphrase: 'not the one!' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    const key = await store.create('x', { import: ncryptsec, passphrase: 'the old passphrase' });
    expect(key.pubkey).toBe(getPublicKey(secretKey));
  });

  it('refuses a crafted ncryptsec whose scrypt cost would hang the process', async () => {
    const store = await openStore();
    // version 2, log N 40, salt, nonce, key security byte, ciphertext: the layout of NIP-49.
    const bytes = new Uint8Array(91);
    crypto.getRandomValues(bytes);
    bytes.set([0x02, 40]);
    const crafted = nip19.encodeBytes('ncryptsec', bytes);
    expect(crafted).toHaveLength(162);
    await expect(store.create('x', { import: crafted, passphrase: 'passphrase' })).rejects.toThrow(
      /log N 40/,
    );
  });

  it('leaves a key locked after a wrong passphrase, and throttles the next attempt', async () => {
    let now = 1_000_000;
    const store = await openStore({ now: () => now });
    await store.create('k', { passphrase: PASSPHRASE });
    store.lock('k');
    expect(codeOf(() => store.unlock('k', 'wrong passphrase'))).toBe('forbidden');
    expect(store.get('k').locked).toBe(true);
    expect(codeOf(() => store.unlock('k', PASSPHRASE))).toBe('too_many_attempts');
    now += 500;
    expect(codeOf(() => store.unlock('k', 'wrong again!'))).toBe('forbidden');
    now += 999;
    expect(codeOf(() => store.unlock('k', PASSPHRASE))).toBe('too_many_attempts');
    now += 1;
    expect(store.unlock('k', PASSPHRASE).locked).toBe(false);
  });

  it('rejects weak passphrases, duplicate names and bad names', async () => {
    const store = await openStore();
    await expect(store.create('k', { passphrase: 'short' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await store.create('k', { passphrase: PASSPHRASE });
    await expect(store.create('k', { passphrase: PASSPHRASE })).rejects.toMatchObject({ code: 'key_exists' });
    await expect(store.create('../k', { passphrase: PASSPHRASE })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(
      store.create('k2', { passphrase: PASSPHRASE, import: 'nsec1garbage' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('unlocks at start every key one passphrase opens and reports the rest', async () => {
    const dataDir = await tempDir();
    const engine = await loadSigningEngine();
    const first = await KeyStore.open({ dataDir, engine });
    await first.create('a', { passphrase: PASSPHRASE });
    await first.create('b', { passphrase: 'another passphrase' });
    await first.create('c', { passphrase: PASSPHRASE });
    first.close();
    const second = await KeyStore.open({ dataDir, engine });
    expect(second.unlockAll(PASSPHRASE)).toEqual({ unlocked: ['a', 'c'], failed: ['b'] });
    expect(second.status()).toEqual({ active: 2, locked: 1 });
  });

  it('locks keys idle for the auto-lock period', async () => {
    let now = 0;
    const store = await openStore({ now: () => now, autoLockMs: 60_000 });
    await store.create('k', { passphrase: PASSPHRASE });
    now = 59_000;
    await store.sign('k', [template()]);
    now = 118_000;
    store.lockIdle();
    expect(store.get('k').locked).toBe(false);
    now = 119_000;
    store.lockIdle();
    expect(store.get('k').locked).toBe(true);
    store.close();
  });

  it('keeps a key unlocked when told to: lock and auto-lock refuse, close and delete still wipe it', async () => {
    let now = 0;
    const store = await openStore({ now: () => now, autoLockMs: 1000 });
    await store.create('dev', { passphrase: PASSPHRASE, import: cheapNcryptsec() });
    await store.create('other', { passphrase: PASSPHRASE, import: cheapNcryptsec() });
    store.keepUnlocked('dev', 'its passphrase was never shown');
    expect(store.lockRefusal('dev')).toBe('Key `dev` cannot be locked: its passphrase was never shown');
    expect(store.lockRefusal('other')).toBeUndefined();
    expect(() => store.lock('dev')).toThrow(
      expect.objectContaining({ code: 'key_not_lockable', status: 409, message: store.lockRefusal('dev') }),
    );
    now = 5000;
    store.lockIdle();
    expect(store.get('dev').locked).toBe(false);
    expect(store.get('other').locked).toBe(true);
    store.lock('other');
    expect(codeOf(() => store.keepUnlocked('other', 'x'))).toBe('key_locked');
    store.close();
    expect(store.get('dev').locked).toBe(true);
    await store.delete('dev');
    expect(codeOf(() => store.get('dev'))).toBe('key_not_found');
  });

  it('signs in order and appends one audit line per event, without content', async () => {
    const dataDir = await tempDir();
    const audit = await openAuditLog(join(dataDir, 'audit.log'));
    const store = await KeyStore.open({ dataDir, engine: await loadSigningEngine(), audit });
    await store.create('k', { passphrase: PASSPHRASE });
    const templates = Array.from({ length: 5 }, (_, i) => template(i));
    const events = await store.sign('k', templates);
    await store.sign('k', [template(9)]);
    expect(events.map((e) => e.content)).toEqual(templates.map((t) => t.content));
    for (const e of events) expect(verifyEvent({ ...e })).toBe(true);
    await audit.close();
    const lines = (await readFile(join(dataDir, 'audit.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(6);
    expect(Object.keys(lines[0])).toEqual(['time', 'key', 'id', 'kind']);
    expect(lines.slice(0, 5).map((l) => l.id)).toEqual(events.map((e) => e.id));
    expect(JSON.stringify(lines)).not.toContain('page 0');
  });

  it('deletes a key from memory and disk', async () => {
    const store = await openStore();
    await store.create('k', { passphrase: PASSPHRASE });
    await store.delete('k');
    expect(store.list()).toEqual([]);
    expect(await readdir(join(store.dataDir, 'keys'))).toEqual([]);
    await expect(store.delete('k')).rejects.toMatchObject({ code: 'key_not_found' });
  });

  it('skips a damaged key file with a warning instead of failing', async () => {
    const dataDir = await tempDir();
    const engine = await loadSigningEngine();
    const first = await KeyStore.open({ dataDir, engine });
    await first.create('good', { passphrase: PASSPHRASE });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dataDir, 'keys', 'bad.json'), '{not json');
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (m: string) => warnings.push(m) };
    const second = await KeyStore.open({ dataDir, engine, logger });
    expect(second.list().map((k) => k.name)).toEqual(['good']);
    expect(warnings.join()).toContain('bad.json');
  });
});
