import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as nip19 from 'nostr-tools/nip19';
import { generateSecretKey } from 'nostr-tools/pure';
import { describe, expect, it, vi } from 'vitest';
import { createApp, KeyStore, loadSigningEngine, openAuditLog, tokensEqual } from '../src/index.js';
import { ADMIN_TOKEN, API_TOKEN, tempDir } from './helpers.js';

// Timeouts (docs/testing.md): NIP-49 scrypt key derivations (log N 16): seconds of CPU each, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

describe('security', () => {
  it('never puts a secret, a passphrase or a token into a response, a log line, or the data directory', async () => {
    const secretKey = generateSecretKey();
    const hex = Buffer.from(secretKey).toString('hex');
    const nsec = nip19.nsecEncode(secretKey);
    const passphrase = 'a very secret passphrase';
    const logged: string[] = [];
    const logger = {
      info: (m: string) => logged.push(m),
      warn: (m: string) => logged.push(m),
      error: (m: string) => logged.push(m),
    };
    const dataDir = await tempDir();
    const audit = await openAuditLog(join(dataDir, 'audit.log'));
    const store = await KeyStore.open({ dataDir, engine: await loadSigningEngine(), audit, logger });
    const app = createApp({ store, apiToken: API_TOKEN, adminToken: ADMIN_TOKEN, logger });
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await app.request(path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return res.text();
    };
    const texts = [
      await call('POST', '/api/keys', ADMIN_TOKEN, { name: 'k', import: nsec, passphrase }),
      await call('POST', '/api/keys/k/lock', ADMIN_TOKEN),
      await call('POST', '/api/keys/k/unlock', ADMIN_TOKEN, { passphrase: `${passphrase}!` }),
      await call('POST', '/api/keys/k/unlock', ADMIN_TOKEN, { passphrase }),
      await call('GET', '/api/keys', API_TOKEN),
      await call('POST', '/api/keys/k/sign', API_TOKEN, {
        events: [{ kind: 1, created_at: 1, tags: [], content: 'c' }],
      }),
      await call('POST', '/api/keys', ADMIN_TOKEN, { name: 'k', import: nsec, passphrase }),
      await call('POST', '/api/keys', ADMIN_TOKEN, {
        name: 'bad',
        import: `${nsec.slice(0, -1)}x`,
        passphrase,
      }),
    ];
    await audit.close();
    texts.push(logged.join('\n'), await readFile(join(dataDir, 'audit.log'), 'utf8'));
    texts.push(await readFile(join(dataDir, 'keys', 'k.json'), 'utf8'));
    expect(logged.length).toBeGreaterThan(0);
    for (const text of texts) {
      for (const secret of [hex, nsec, passphrase, API_TOKEN, ADMIN_TOKEN, nsec.slice(5, 30)]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('compares tokens exactly', () => {
    expect(tokensEqual(API_TOKEN, API_TOKEN)).toBe(true);
    expect(tokensEqual(API_TOKEN.slice(0, -1), API_TOKEN)).toBe(false);
    expect(tokensEqual(`${API_TOKEN}x`, API_TOKEN)).toBe(false);
    expect(tokensEqual('', API_TOKEN)).toBe(false);
    expect(tokensEqual(API_TOKEN.toUpperCase(), API_TOKEN)).toBe(false);
  });

  it('refuses weak or equal tokens when the app is made', async () => {
    const store = await KeyStore.open({ dataDir: await tempDir(), engine: await loadSigningEngine() });
    expect(() => createApp({ store, apiToken: 'short', adminToken: ADMIN_TOKEN })).toThrow(/at least 16/);
    expect(() => createApp({ store, apiToken: ADMIN_TOKEN, adminToken: ADMIN_TOKEN })).toThrow(/differ/);
  });
});
