import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nip19 from 'nostr-tools/nip19';
import * as nip49 from 'nostr-tools/nip49';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  callBunker as call,
  type RunningBunker,
  runBunkerCli,
  startBunker,
} from '../support/bunker-process.js';
import { dashboardCookie, rawRequest as httpRequest } from './raw-http.js';

// Timeouts (docs/testing.md): bunker starts on bad input: 16 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

let bunker: RunningBunker;

/** Call the bunker with the API token unless another is given. */
function callBunker(
  _url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
) {
  return call(bunker.url, method, path, { ...options, token: options.token ?? bunker.apiToken });
}

const template = (i = 0) => ({ kind: 1, created_at: 1_700_000_000 + i, tags: [], content: `n${i}` });

beforeAll(async () => {
  bunker = await startBunker();
});

afterAll(async () => {
  await bunker?.stop();
});

async function expectError(res: Response, status: number, code: string, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  if (message) expect(body.error.message).toMatch(message);
}

/** A request with the path exactly as written (fetch would normalise `..`). */
function rawRequest(
  url: string,
  method: string,
  path: string,
  body: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, headers: { authorization: `Bearer ${bunker.apiToken}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bad input against a real siegel-bunker', () => {
  it('answers malformed JSON with 400', async () => {
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/keys/default/sign', { body: '{"events": [1,' }),
      400,
      'invalid_request',
      /not valid JSON/,
    );
  });

  it('answers wrong types with 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ events: 'all of them' }, /`events`/],
      [{ events: [{ ...template(), kind: 1.5 }] }, /`events\[0\]\.kind`/],
      [{ events: [template(), { ...template(), created_at: '2024' }] }, /`events\[1\]\.created_at`/],
      [{ events: [{ ...template(), tags: [['p', null]] }] }, /`events\[0\]\.tags\[0\]\[1\]`/],
      [{ events: [{ ...template(), content: 42 }] }, /`events\[0\]\.content`/],
    ];
    for (const [body, message] of cases) {
      await expectError(
        await callBunker(bunker.url, 'POST', '/api/keys/default/sign', { body }),
        400,
        'invalid_request',
        message,
      );
    }
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/sign', { body: { keyName: 7, event: template() } }),
      400,
      'invalid_request',
      /`keyName`/,
    );
  });

  it('answers a 10 000-event batch with 413', async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => template(i));
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/keys/default/sign', { body: { events } }),
      413,
      'batch_too_large',
      /at most 1000/,
    );
  });

  it('answers a 20 MB body with 413', async () => {
    const body = JSON.stringify({ events: [{ ...template(), content: 'x'.repeat(20 * 1024 * 1024) }] });
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/keys/default/sign', { body }),
      413,
      'payload_too_large',
    );
  });

  it('answers unknown routes and keys with 404', async () => {
    await expectError(await callBunker(bunker.url, 'GET', '/wp-login.php'), 404, 'not_found');
    await expectError(await callBunker(bunker.url, 'PUT', '/api/keys'), 404, 'not_found');
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/keys/ghost/sign', { body: { events: [] } }),
      404,
      'key_not_found',
    );
    await expectError(
      await callBunker(bunker.url, 'POST', '/api/keys/ghost/unlock', {
        token: bunker.adminToken,
        body: { passphrase: 'x' },
      }),
      404,
      'key_not_found',
    );
  });

  it('refuses path tricks in key names', async () => {
    for (const path of [
      '/api/keys/..%2F..%2Fetc%2Fpasswd/sign',
      '/api/keys/..%5Ckeys%5Cdefault/sign',
      '/api/keys/default%00/sign',
      '/api/keys/.default/sign',
      '/api/keys/%2e%2e%2fkeys%2fdefault/sign',
    ]) {
      const res = await rawRequest(bunker.url, 'POST', path, JSON.stringify({ events: [template()] }));
      expect(res.status, path).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'invalid_request' } });
    }
    // A literal `..` is resolved by the router before matching: it never reaches a key lookup.
    const dotted = await rawRequest(bunker.url, 'POST', '/api/keys/../../etc/passwd/sign', '{}');
    expect(dotted.status).toBeGreaterThanOrEqual(400);
    expect(dotted.status).toBeLessThan(500);
  });

  // Regression (issue 10): `GET /admin?notice=__proto__` answered 500 — the notice code was looked up in a
  // plain object, so prototype keys found Object.prototype's members.
  it('shows the dashboard (no notice, no 500) for prototype keys as the notice code', async () => {
    const cookie = await dashboardCookie(bunker.url, bunker.adminToken);
    for (const notice of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
      'isPrototypeOf',
    ]) {
      const res = await httpRequest(bunker.url, {
        path: `/admin?notice=${notice}&key=default`,
        headers: { cookie },
      });
      expect(res.status, notice).toBe(200);
      expect(res.text).toContain('data-key="default"');
      expect(res.text).not.toContain('class="notice');
    }
    const known = await httpRequest(bunker.url, {
      path: '/admin?notice=locked&key=default',
      headers: { cookie },
    });
    expect(known.text).toContain('Key default is locked.');
  });

  // Regression (issue 10): importing an invalid secret answered 500 (the engine threw on a zero or
  // out-of-range scalar), and a 31- or 33-byte `nsec` was even accepted as some other key.
  describe('invalid secrets to import', () => {
    const ORDER = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
    const cases: Array<[string, string, RegExp]> = [
      ['zero hex', '0'.repeat(64), /not a valid secp256k1 secret key/],
      ['hex equal to the group order', ORDER, /not a valid secp256k1 secret key/],
      ['hex above the group order', 'f'.repeat(64), /not a valid secp256k1 secret key/],
      ['zero nsec', nip19.nsecEncode(new Uint8Array(32)), /not a valid secp256k1 secret key/],
      ['nsec of the group order', nip19.nsecEncode(bytes(ORDER)), /not a valid secp256k1 secret key/],
      ['31-byte nsec', nip19.nsecEncode(new Uint8Array(31).fill(1)), /31 bytes, expected 32/],
      ['33-byte nsec', nip19.nsecEncode(new Uint8Array(33).fill(1)), /33 bytes, expected 32/],
      ['63 hex characters', '1'.repeat(63), /must be an `nsec1…`/],
      ['an npub', nip19.npubEncode('1'.repeat(64)), /must be an `nsec1…`/],
      [
        'ncryptsec of a zero key',
        nip49.encrypt(new Uint8Array(32), 'import passphrase', 10),
        /not a valid secp256k1 secret key/,
      ],
      [
        'ncryptsec of the group order',
        nip49.encrypt(bytes(ORDER), 'import passphrase', 10),
        /not a valid secp256k1 secret key/,
      ],
    ];

    it('answers each with 400 invalid_request and a clear message, and stores nothing', async () => {
      const keysBefore = await (
        await call(bunker.url, 'GET', '/api/keys', { token: bunker.apiToken })
      ).json();
      for (const [i, [what, secret, message]] of cases.entries()) {
        await expectError(
          await callBunker(bunker.url, 'POST', '/api/keys', {
            token: bunker.adminToken,
            body: { name: `bad-${i}`, import: secret, passphrase: 'import passphrase' },
          }),
          400,
          'invalid_request',
          message,
        ).catch((error: Error) => {
          throw new Error(`${what}: ${error.message}`);
        });
      }
      expect(await (await call(bunker.url, 'GET', '/api/keys', { token: bunker.apiToken })).json()).toEqual(
        keysBefore,
      );
      expect((await readdir(join(bunker.dataDir, 'keys'))).sort()).toEqual(['default.json']);
    });

    it('`keys add --import` refuses each with exit 1, the same message, and no key file', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'siegel-bunker-bad-import-'));
      try {
        for (const [what, secret, message] of cases.filter((_, i) => i % 2 === 0)) {
          const result = await runBunkerCli(['keys', 'add', 'k', '--import', secret, '--data-dir', dataDir], {
            BUNKER_PASSPHRASE: 'import passphrase',
          });
          expect(result.code, what).toBe(1);
          expect(result.stderr, what).toMatch(message);
          expect(result.stderr, what).not.toMatch(/nostr-wasm|libsecp256k1|at .*\.js/);
          expect(existsSync(join(dataDir, 'keys', 'k.json')), what).toBe(false);
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('keeps serving after all of that', async () => {
    const res = await callBunker(bunker.url, 'POST', '/api/keys/default/sign', {
      body: { events: [template()] },
    });
    expect(res.status).toBe(200);
    expect((await callBunker(bunker.url, 'GET', '/api/keys')).status).toBe(200);
  });
});
