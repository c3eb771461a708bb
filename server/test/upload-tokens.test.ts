// Upload tokens (issue 26, part 2): the store's atomic use count and sweep, the mint route, the checks of
// the upload routes, and CORS only for SIGN_CORS_ORIGINS. In process (app.request); the real server process
// and Chromium are in test/client/upload-tokens*.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hashUploadToken,
  mintUploadToken,
  readCorsOrigins,
  serializedOrigin,
} from '../src/signing/upload-tokens.js';
import { SqliteRecordStore } from '../src/storage/sqlite-record-store.js';
import { makeTestApp, readFixture, TOKEN, uploadForm } from './test-app.js';

const ORIGIN = 'https://app.example';

/** The names of the CORS headers (`access-control-…`) among `headers`. */
function corsHeaders(headers: Headers): string[] {
  const names: string[] = [];
  headers.forEach((_value, name) => {
    if (name.startsWith('access-control-')) names.push(name);
  });
  return names;
}
const HASH = 'a'.repeat(64);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-upload-tokens-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('upload tokens in the record store', () => {
  it('takes uses atomically up to `uses`, never after expiry; across two connections to one database', async () => {
    const path = join(dir, 'siegel.sqlite');
    const first = new SqliteRecordStore(path);
    const second = new SqliteRecordStore(path);
    try {
      await first.insertUploadToken({ hash: HASH, origin: ORIGIN, uses: 3, expiresAt: 10_000, createdAt: 0 });
      const taken = [];
      for (let i = 0; i < 5; i++) taken.push(await (i % 2 ? first : second).useUploadToken(HASH, 5_000));
      expect(taken.map((token) => token?.used)).toEqual([1, 2, 3, undefined, undefined]);
      expect(await first.findUploadToken(HASH)).toMatchObject({
        origin: ORIGIN,
        uses: 3,
        used: 3,
        expiresAt: 10_000,
      });

      await second.insertUploadToken({
        hash: 'b'.repeat(64),
        origin: ORIGIN,
        uses: 5,
        expiresAt: 10_000,
        createdAt: 0,
      });
      expect(await first.useUploadToken('b'.repeat(64), 10_000)).toBeUndefined(); // expired at 10 000
      expect(await first.useUploadToken('c'.repeat(64), 0)).toBeUndefined(); // unknown
      expect((await first.findUploadToken('b'.repeat(64)))?.used).toBe(0);
    } finally {
      first.close();
      second.close();
    }
  });

  it('keeps only the hash: the table has no column holding the token', async () => {
    const path = join(dir, 'siegel.sqlite');
    const store = new SqliteRecordStore(path);
    const minted = await mintUploadToken(store, { origin: ORIGIN }, [ORIGIN]);
    store.close();
    const db = new DatabaseSync(path);
    const rows = db.prepare('SELECT * FROM upload_tokens').all();
    db.close();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(minted.token.slice(4));
    expect(rows[0]).toMatchObject({ hash: hashUploadToken(minted.token), origin: ORIGIN, uses: 1, used: 0 });
  });

  it('the sweep removes tokens expired before the given time, and minting sweeps those expired over an hour ago', async () => {
    const store = new SqliteRecordStore(join(dir, 'siegel.sqlite'));
    try {
      const now = Date.now();
      await store.insertUploadToken({
        hash: HASH,
        origin: ORIGIN,
        uses: 1,
        expiresAt: now - 2 * 3600_000,
        createdAt: 0,
      });
      await store.insertUploadToken({
        hash: 'b'.repeat(64),
        origin: ORIGIN,
        uses: 1,
        expiresAt: now - 60_000,
        createdAt: 0,
      });
      await mintUploadToken(store, { origin: ORIGIN }, [ORIGIN], now);
      expect(await store.findUploadToken(HASH)).toBeUndefined();
      expect(await store.findUploadToken('b'.repeat(64))).toBeDefined(); // still answers "expired"
      expect(await store.removeExpiredUploadTokens(now)).toBe(1);
      expect(await store.findUploadToken('b'.repeat(64))).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

describe('origins', () => {
  it('reads serialized origins only', () => {
    expect(serializedOrigin('https://app.example')).toBe('https://app.example');
    expect(serializedOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    for (const bad of [
      'https://app.example/',
      'https://App.example',
      'https://app.example:443',
      'https://u@app.example',
      'ftp://app.example',
      'null',
      '*',
      'app.example',
    ]) {
      expect(serializedOrigin(bad), bad).toBeUndefined();
    }
    expect(readCorsOrigins(' https://a.example, ,http://127.0.0.1:8080 ')).toEqual([
      'https://a.example',
      'http://127.0.0.1:8080',
    ]);
    expect(readCorsOrigins(undefined)).toEqual([]);
    expect(() => readCorsOrigins('https://a.example/')).toThrow(
      /SIGN_CORS_ORIGINS must list origins.*`https:\/\/a\.example\/`/,
    );
  });
});

describe('the mint route and the upload routes', () => {
  const mint = (
    app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
    body: unknown,
    token = TOKEN,
  ) =>
    app.request('/api/upload-tokens', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('mints with defaults and limits; refuses bad bodies, unlisted origins and upload tokens', async () => {
    const t = await makeTestApp({ corsOrigins: [ORIGIN] });
    try {
      const before = Date.now();
      const response = await mint(t.app, { origin: ORIGIN });
      expect(response.status).toBe(201);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      const body = (await response.json()) as {
        token: string;
        origin: string;
        expires_at: string;
        uses: number;
      };
      expect(body).toMatchObject({ success: true, origin: ORIGIN, uses: 1 });
      expect(body.token).toMatch(/^sut_[A-Za-z0-9_-]{43}$/);
      const lifetime = Date.parse(body.expires_at) - before;
      expect(lifetime).toBeGreaterThanOrEqual(299_000);
      expect(lifetime).toBeLessThanOrEqual(301_000);

      const cases: [unknown, number, string, RegExp][] = [
        [
          { origin: 'https://other.example' },
          422,
          'ORIGIN_NOT_ALLOWED',
          /not in the server's SIGN_CORS_ORIGINS/,
        ],
        [{ origin: `${ORIGIN}/` }, 400, 'INVALID_TOKEN_REQUEST', /`origin` must be the page's origin/],
        [{}, 400, 'INVALID_TOKEN_REQUEST', /`origin` must be/],
        [
          { origin: ORIGIN, uses: 101 },
          400,
          'INVALID_TOKEN_REQUEST',
          /`uses` must be a whole number from 1 to 100/,
        ],
        [{ origin: ORIGIN, uses: 0 }, 400, 'INVALID_TOKEN_REQUEST', /`uses`/],
        [
          { origin: ORIGIN, ttl_seconds: 1801 },
          400,
          'INVALID_TOKEN_REQUEST',
          /`ttl_seconds` must be a whole number from 1 to 1800/,
        ],
        [{ origin: ORIGIN, ttl_seconds: 1.5 }, 400, 'INVALID_TOKEN_REQUEST', /`ttl_seconds`/],
        [{ origin: ORIGIN, scope: 'all' }, 400, 'INVALID_TOKEN_REQUEST', /Unknown field `scope`/],
        ['{not json', 400, 'INVALID_TOKEN_REQUEST', /must be JSON/],
        [[ORIGIN], 400, 'INVALID_TOKEN_REQUEST', /JSON object/],
        [{ origin: 'x'.repeat(5000) }, 400, 'INVALID_TOKEN_REQUEST', /at most 4096 bytes/],
      ];
      for (const [request, status, code, message] of cases) {
        const refused = await mint(t.app, request);
        const answer = (await refused.json()) as { error: string; message: string };
        expect([refused.status, answer.error], JSON.stringify(request).slice(0, 80)).toEqual([status, code]);
        expect(answer.message).toMatch(message);
      }
      // An upload token never mints another.
      const withUploadToken = await mint(t.app, { origin: ORIGIN }, body.token);
      expect(withUploadToken.status).toBe(401);
      expect(await withUploadToken.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    } finally {
      await t.close();
    }
  });

  it('an upload token works from its origin only, for its uses', async () => {
    const t = await makeTestApp({ corsOrigins: [ORIGIN] });
    try {
      const png = await readFixture('png-author.png');
      const { token } = (await (await mint(t.app, { origin: ORIGIN, uses: 2 })).json()) as { token: string };
      const inspect = (origin: string | undefined, bearer = token) =>
        t.app.request('/api/inspect', {
          method: 'POST',
          body: uploadForm('photo.png', png),
          headers: { Authorization: `Bearer ${bearer}`, ...(origin ? { Origin: origin } : {}) },
        });
      for (const origin of [undefined, 'https://other.example', 'https://app.example:8443']) {
        const refused = await inspect(origin);
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ error: 'UPLOAD_TOKEN_ORIGIN', origin: ORIGIN });
      }
      expect((await inspect(ORIGIN)).status).toBe(200);
      expect((await inspect(ORIGIN)).status).toBe(200);
      const usedUp = await inspect(ORIGIN);
      expect(usedUp.status).toBe(401);
      expect(await usedUp.json()).toMatchObject({ error: 'UPLOAD_TOKEN_USED_UP', uses: 2 });
      // A token-shaped string that was never minted.
      const unknown = await inspect(ORIGIN, `sut_${'A'.repeat(43)}`);
      expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([
        401,
        'UNAUTHORIZED',
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('what takes a use', () => {
  it('an upload refused by the rate limit (429) or for room (503) takes no use; an admitted one does, whatever its answer', async () => {
    const t = await makeTestApp({
      corsOrigins: [ORIGIN],
      uploadWaitMs: 0,
      maxUploadsInFlight: 1,
      rateLimitPerMinute: 3,
    });
    try {
      const minted = await mintUploadToken(t.records, { origin: ORIGIN, uses: 5 }, [ORIGIN]);
      const hash = hashUploadToken(minted.token);
      const upload = (body: BodyInit, bearer = minted.token) =>
        t.app.request('/api/inspect', {
          method: 'POST',
          body,
          headers: { Authorization: `Bearer ${bearer}`, Origin: ORIGIN },
        });
      // A sign-token upload whose body never ends holds the only slot.
      let finish = () => {};
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('--b\r\n'));
          finish = () => controller.close();
        },
      });
      const holding = t.app.request('/api/inspect', {
        method: 'POST',
        body: stream,
        duplex: 'half',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'multipart/form-data; boundary=b' },
      } as RequestInit);
      await new Promise((resolve) => setImmediate(resolve));
      const busy = await upload(uploadForm('photo.png', await readFixture('png-author.png')));
      expect(busy.status).toBe(503);
      expect((await t.records.findUploadToken(hash))?.used).toBe(0);
      finish();
      await holding;
      // An admitted upload takes a use, whatever it answers (here: not signable, no author).
      const noAuthor = await upload(uploadForm('photo.png', await readFixture('png-no-author.png')));
      expect(noAuthor.status).toBe(200); // inspect answers 200 with signable: false
      expect((await t.records.findUploadToken(hash))?.used).toBe(1);
      // The rate limit (3 a minute, 3 spent) refuses before anything is taken.
      const limited = await upload(uploadForm('photo.png', await readFixture('png-author.png')));
      expect(limited.status).toBe(429);
      expect((await t.records.findUploadToken(hash))?.used).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('CORS', () => {
  const preflight = (
    app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
    path: string,
    origin: string,
  ) =>
    app.request(path, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    });

  it('answers preflights and errors for listed origins only, with the error headers exposed', async () => {
    const t = await makeTestApp({ corsOrigins: [ORIGIN] });
    try {
      for (const path of ['/api/sign-image-v2', '/api/inspect', '/api/upload-tokens']) {
        const allowed = await preflight(t.app, path, ORIGIN);
        expect(allowed.status, path).toBe(204);
        expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN);
        expect(allowed.headers.get('Access-Control-Allow-Headers')).toBe('Authorization,Content-Type');
        expect(allowed.headers.get('Access-Control-Allow-Methods')).toBe('POST,OPTIONS');
        const other = await preflight(t.app, path, 'https://other.example');
        expect(other.status, path).toBe(404);
        expect(corsHeaders(other.headers), path).toEqual([]);
      }
      // An error answer to a listed origin carries the CORS headers, so the page can read it.
      const refused = await t.app.request('/api/sign-image-v2', {
        method: 'POST',
        headers: { Origin: ORIGIN },
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('Access-Control-Allow-Origin')).toBe(ORIGIN);
      expect(refused.headers.get('Access-Control-Expose-Headers')).toBe('Retry-After,X-Reason');
    } finally {
      await t.close();
    }
  });

  it('without SIGN_CORS_ORIGINS no answer carries a CORS header', async () => {
    const t = await makeTestApp();
    try {
      for (const path of ['/api/sign-image-v2', '/api/inspect', '/api/upload-tokens']) {
        for (const response of [
          await preflight(t.app, path, ORIGIN),
          await t.app.request(path, {
            method: 'POST',
            headers: { Origin: ORIGIN, Authorization: `Bearer ${TOKEN}` },
          }),
        ]) {
          expect(corsHeaders(response.headers), path).toEqual([]);
        }
      }
    } finally {
      await t.close();
    }
  });
});
