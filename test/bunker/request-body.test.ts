// Issue 10: "unauthenticated chunked bodies are buffered before the token check". The bunker now checks
// the token (or the dashboard session) first and answers without reading the body, and reads the body
// of an authorised request only up to its limit, while it streams in.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { streamRequest } from './raw-http.js';

// Timeouts (docs/testing.md): large and slow request bodies: 24 s alone
vi.setConfig({ testTimeout: 90_000 });

let bunker: RunningBunker;

beforeAll(async () => {
  bunker = await startBunker();
});

afterAll(async () => {
  await bunker?.stop();
});

/** Resolves when `closed` does, rejects after `ms`. */
function within(closed: Promise<void>, ms: number, what: string): Promise<void> {
  return Promise.race([
    closed,
    new Promise<void>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: the bunker kept the connection open for ${ms} ms`)), ms),
    ),
  ]);
}

/** A JSON-looking body that never ends: 1 KiB every 20 ms. */
const endless = { chunk: `${'{"events":['.padEnd(1024, ' ')}`, intervalMs: 20 };

describe('request bodies', () => {
  it('answers a request without a valid token at once, without waiting for its endless chunked body', async () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['POST', '/api/keys/default/sign', {}, 401],
      ['POST', '/api/keys/default/sign', { authorization: 'Bearer not-a-token-0123456789' }, 401],
      ['POST', '/api/keys/default/sign', { authorization: `Bearer ${'x'.repeat(4000)}` }, 401],
      ['POST', '/api/sign', {}, 401],
      ['POST', '/api/keys', {}, 401],
      ['POST', '/api/keys/default/unlock', {}, 401],
      // A known token of the wrong role is refused before the body too.
      ['POST', '/api/keys', { authorization: `Bearer ${bunker.apiToken}` }, 403],
      ['POST', '/api/keys/default/sign', { authorization: `Bearer ${bunker.adminToken}` }, 403],
      // Dashboard actions without a session go back to the sign-in page, unread.
      ['POST', '/admin/keys/default/unlock', { origin: bunker.url }, 303],
    ];
    for (const [method, path, headers, status] of cases) {
      const what = `${method} ${path} ${Object.keys(headers).join(',')}`;
      const res = await streamRequest(bunker.url, {
        method,
        path,
        headers: { 'content-type': 'application/json', ...headers },
        ...endless,
        timeoutMs: 5000,
      });
      expect(res.status, what).toBe(status);
      expect(res.endedBeforeAnswer, what).toBe(false);
      // The rest of the body is not waited for: the bunker closes the connection.
      await within(res.closed, 5000, what);
    }
  });

  it('reads the admin sign-in form only up to 16 KiB', async () => {
    const res = await streamRequest(bunker.url, {
      method: 'POST',
      path: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: bunker.url },
      chunk: `token=${'a'.repeat(1018)}`,
      intervalMs: 5,
      timeoutMs: 10_000,
    });
    expect(res.status).toBe(413);
    expect(res.endedBeforeAnswer).toBe(false);
    expect(res.bytesSentBeforeAnswer).toBeLessThan(1024 * 1024);
    await within(res.closed, 5000, 'login');
  });

  it('stops reading an authorised chunked body past 8 MiB with 413, while it still streams', async () => {
    const res = await streamRequest(bunker.url, {
      path: '/api/keys/default/sign',
      headers: { authorization: `Bearer ${bunker.apiToken}`, 'content-type': 'application/json' },
      chunk: ' '.repeat(64 * 1024),
      intervalMs: 1,
      timeoutMs: 20_000,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(res.endedBeforeAnswer).toBe(false);
    await within(res.closed, 5000, 'oversized body');
  });

  it('answers a Content-Length over 8 MiB with 413 before any of the body is sent', async () => {
    const res = await streamRequest(bunker.url, {
      path: '/api/keys/default/sign',
      headers: { authorization: `Bearer ${bunker.apiToken}`, 'content-type': 'application/json' },
      contentLength: 9 * 1024 * 1024,
      chunk: ' ',
      intervalMs: 50,
      timeoutMs: 5000,
    });
    expect(res.status).toBe(413);
    expect(res.bytesSentBeforeAnswer).toBeLessThan(1024);
  });

  it('signs an authorised chunked body that ends', async () => {
    const body = JSON.stringify({ events: [{ kind: 1, created_at: 1, tags: [], content: 'chunked' }] });
    const res = await streamRequest(bunker.url, {
      path: '/api/keys/default/sign',
      headers: { authorization: `Bearer ${bunker.apiToken}`, 'content-type': 'application/json' },
      chunk: body,
      intervalMs: 10,
      totalBytes: body.length,
      end: true,
      timeoutMs: 10_000,
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ events: [{ content: 'chunked' }] });
  });
});
