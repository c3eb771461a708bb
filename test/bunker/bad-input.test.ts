import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callBunker as call, type RunningBunker, startBunker } from '../support/bunker-process.js';

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

  it('keeps serving after all of that', async () => {
    const res = await callBunker(bunker.url, 'POST', '/api/keys/default/sign', {
      body: { events: [template()] },
    });
    expect(res.status).toBe(200);
    expect((await callBunker(bunker.url, 'GET', '/api/keys')).status).toBe(200);
  });
});
