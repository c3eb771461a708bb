// An error answered before the request body is read tells the client to close the connection, so that a
// keep-alive client never sends its next request on a connection the server is about to drop.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';

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

  it('an unknown key (404) and a wrong token (401) say Connection: close', async () => {
    expect(await post('/api/keys/nobody/sign', bunker.apiToken, body)).toEqual({
      status: 404,
      connection: 'close',
    });
    expect(await post('/api/keys/default/sign', 'wrong-token-0123456789abcdef', body)).toEqual({
      status: 401,
      connection: 'close',
    });
  });

  it('an answer after reading the body keeps the connection', async () => {
    const signed = await post('/api/keys/default/sign', bunker.apiToken, body);
    expect(signed).toEqual({ status: 200, connection: 'keep-alive' });
  });
});
