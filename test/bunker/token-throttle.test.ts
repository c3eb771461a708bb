// Issue 10: "admin sign-in and token guesses are not throttled". The bunker counts wrong tokens (Bearer
// and dashboard sign-in together) per client address: 5 in a row are free, then each makes that address
// wait 1 s, doubling up to 60 s (429 with Retry-After). Other addresses are not affected, so a guesser
// elsewhere cannot lock out the local user. Any address of 127.0.0.0/8 reaches a bunker on 127.0.0.1, which
// lets this test speak from several addresses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { type RawResponse, rawRequest } from './raw-http.js';

let bunker: RunningBunker;

beforeAll(async () => {
  bunker = await startBunker();
});

afterAll(async () => {
  await bunker?.stop();
});

const listKeys = (token: string, localAddress: string) =>
  rawRequest(bunker.url, { path: '/api/keys', headers: { authorization: `Bearer ${token}` }, localAddress });

const signIn = (token: string, localAddress: string) =>
  rawRequest(bunker.url, {
    method: 'POST',
    path: '/admin/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: bunker.url },
    body: new URLSearchParams({ token }).toString(),
    localAddress,
  });

function expectThrottled(res: RawResponse, seconds: number) {
  expect(res.status).toBe(429);
  expect(res.headers['retry-after']).toBe(String(seconds));
}

/**
 * Repeat `attempt` (a right token from a throttled address) until the bunker lets it through, and answer
 * that response. The wait is the bunker process's, so this polls (bounded far above the waits tested);
 * until then every answer must be the throttle's 429, never announcing a longer wait than `seconds`.
 * Refused attempts neither count nor extend the wait, so asking meanwhile does not delay the end.
 */
async function afterTheWait(attempt: () => Promise<RawResponse>, seconds: number): Promise<RawResponse> {
  let last: RawResponse | undefined;
  await eventually(
    async () => {
      last = await attempt();
      if (last.status !== 429) return true;
      expect(Number(last.headers['retry-after'])).toBeLessThanOrEqual(seconds);
      return false;
    },
    20_000,
    100,
  );
  return last as RawResponse;
}

describe('throttling of wrong tokens per client address', () => {
  it('lets 5 wrong Bearer tokens through, then makes that address wait, and only that address', async () => {
    const guesser = '127.0.0.2';
    for (let i = 0; i < 5; i++) {
      expect((await listKeys(`wrong-token-${i}-0123456789`, guesser)).status).toBe(401);
    }
    // The sixth wrong token is still answered 401, and arms a 1 s wait.
    expect((await listKeys('wrong-token-5-0123456789', guesser)).status).toBe(401);
    const refused = await listKeys(bunker.apiToken, guesser);
    expectThrottled(refused, 1);
    expect(JSON.parse(refused.text)).toMatchObject({
      error: { code: 'too_many_attempts', message: expect.stringContaining('`127.0.0.2`') },
    });
    // The dashboard sign-in shares the count.
    const page = await signIn(bunker.adminToken, guesser);
    expectThrottled(page, 1);
    expect(page.text).toContain('Too many wrong tokens');

    // The local user on another address is not locked out.
    expect((await listKeys(bunker.apiToken, '127.0.0.1')).status).toBe(200);
    expect((await signIn(bunker.adminToken, '127.0.0.1')).status).toBe(303);

    // After the wait the right token works again; the next wrong one doubles the wait.
    expect((await afterTheWait(() => listKeys(bunker.apiToken, guesser), 1)).status).toBe(200);
    expect((await listKeys('wrong-token-6-0123456789', guesser)).status).toBe(401);
    expectThrottled(await listKeys(bunker.apiToken, guesser), 2);
    // Attempts refused while waiting do not count and do not extend the wait.
    for (let i = 0; i < 10; i++) expect((await listKeys(`wrong-${i}-0123456789`, guesser)).status).toBe(429);
    expect((await afterTheWait(() => listKeys(bunker.apiToken, guesser), 2)).status).toBe(200);
  });

  it('throttles wrong sign-ins on the dashboard the same way', async () => {
    const guesser = '127.0.0.3';
    for (let i = 0; i < 6; i++) {
      const res = await signIn(`not-the-admin-token-${i}`, guesser);
      expect(res.status).toBe(401);
      expect(res.text).toContain('Wrong admin token.');
    }
    expectThrottled(await signIn(bunker.adminToken, guesser), 1);
    // And for the API too.
    expectThrottled(await listKeys(bunker.apiToken, guesser), 1);
    const res = await afterTheWait(() => signIn(bunker.adminToken, guesser), 1);
    expect(res.status).toBe(303);
    expect(String(res.headers['set-cookie'])).toMatch(/siegel_admin=/);
  });

  it('does not count a missing token or a right token of the wrong role', async () => {
    const client = '127.0.0.4';
    for (let i = 0; i < 10; i++) {
      expect((await rawRequest(bunker.url, { path: '/api/keys', localAddress: client })).status).toBe(401);
      const asApi = await rawRequest(bunker.url, {
        method: 'POST',
        path: '/api/keys/default/lock',
        headers: { authorization: `Bearer ${bunker.apiToken}` },
        localAddress: client,
      });
      expect(asApi.status).toBe(403);
    }
    expect((await listKeys(bunker.apiToken, client)).status).toBe(200);
  });
});
