// An error answered before the request body is read: the bunker reads and discards the rest of the body
// first (up to 64 MiB within 3 s), so a client still uploading gets the answer instead of a broken pipe, and
// the connection stays usable. (A body it cannot drain in time is answered with `Connection: close`: the
// endless bodies of test/bunker/hostile-input.test.ts.)
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';

// Timeouts (docs/testing.md): unread bodies held open: 10 s alone
vi.setConfig({ testTimeout: 45_000 });

let bunker: RunningBunker;

beforeAll(async () => {
  bunker = await startBunker();
});

afterAll(async () => {
  await bunker?.stop();
});

/** POST `body` to `path` on a keep-alive connection; the status and the `connection` header of the answer. */
function post(path: string, token: string, body: string): Promise<{ status: number; connection: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${bunker.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        connection: 'keep-alive',
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('answers before the body is read', () => {
  const body = JSON.stringify({
    events: [{ kind: 1, created_at: 1, tags: [], content: 'x'.repeat(50_000) }],
  });

  it('an unknown key (404) and a wrong token (401) are answered after the body is drained; the connection stays', async () => {
    expect(await post('/api/keys/nobody/sign', bunker.apiToken, body)).toEqual({
      status: 404,
      connection: 'keep-alive',
    });
    expect(await post('/api/keys/default/sign', 'wrong-token-0123456789abcdef', body)).toEqual({
      status: 401,
      connection: 'keep-alive',
    });
  });

  it('a 20 MB upload over the limit gets its 413 through fetch, not a broken pipe (regression: EPIPE on a busy machine)', async () => {
    const huge = JSON.stringify({
      events: [{ kind: 1, created_at: 1, tags: [], content: 'x'.repeat(20 << 20) }],
    });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${bunker.url}/api/keys/default/sign`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bunker.apiToken}`, 'content-type': 'application/json' },
        body: huge,
      });
      expect(response.status).toBe(413);
      await response.text();
    }
  });

  it('an answer after reading the body keeps the connection', async () => {
    const signed = await post('/api/keys/default/sign', bunker.apiToken, body);
    expect(signed).toEqual({ status: 200, connection: 'keep-alive' });
  });
});
