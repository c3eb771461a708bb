import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nip49 from 'nostr-tools/nip49';
import { generateSecretKey } from 'nostr-tools/pure';
import { afterEach } from 'vitest';
import { type AuditLog, createApp, KeyStore, type KeyStoreOptions, loadSigningEngine } from '../src/index.js';

export const API_TOKEN = 'api-token-0123456789abcdef';
export const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
export const PASSPHRASE = 'correct horse battery';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-bunker-test-'));
  dirs.push(dir);
  return dir;
}

/** A key store on a fresh directory. */
export async function openStore(
  options: Partial<KeyStoreOptions> & { audit?: AuditLog } = {},
): Promise<KeyStore> {
  return KeyStore.open({ dataDir: await tempDir(), engine: await loadSigningEngine(), ...options });
}

/** An app with an unlocked `default` key and a locked `cold` key. */
export async function setupApp(options: { maxBatch?: number; maxBodyBytes?: number } = {}) {
  const store = await openStore();
  // Imported ncryptsecs keep their own scrypt cost: log N 10 keeps these tests fast.
  await store.create('default', { passphrase: PASSPHRASE, import: cheapNcryptsec() });
  await store.create('cold', { passphrase: PASSPHRASE, import: cheapNcryptsec() });
  store.lock('cold');
  const app = createApp({ store, apiToken: API_TOKEN, adminToken: ADMIN_TOKEN, ...options });
  const call = (method: string, path: string, body?: unknown, token: string | null = API_TOKEN) =>
    app.request(path, {
      method,
      headers: {
        ...(token !== null && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return { app, store, call };
}

/** A fresh key as NIP-49 with a low scrypt cost (log N 10), encrypted with {@link PASSPHRASE}. */
export function cheapNcryptsec(): string {
  return nip49.encrypt(generateSecretKey(), PASSPHRASE, 10);
}

/** A valid template. */
export function template(i = 0) {
  return { kind: 1063, created_at: 1_700_000_000 + i, tags: [['x', `${i}`]], content: `page ${i}` };
}
