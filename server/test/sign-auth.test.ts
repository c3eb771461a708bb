import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, uploadForm } from './test-app.js';

let t: Awaited<ReturnType<typeof makeTestApp>> | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const MISSING = 'Signing needs `Authorization: Bearer <token>` (a SIGN_API_TOKENS token)';
const INVALID = 'The sign token is not valid';

async function sign(authorization: string | undefined) {
  if (t === undefined) throw new Error('no app');
  const body = uploadForm('a.md', new TextEncoder().encode(`---\nauthor: Ann Lee\n---\n${Math.random()}`));
  const response = await t.app.request('/api/sign-image-v2', {
    method: 'POST',
    body,
    headers: authorization === undefined ? {} : { Authorization: authorization },
  });
  return { status: response.status, body: await response.json() };
}

describe('the sign token (Hono bearerAuth + core findToken)', () => {
  it('accepts every configured token, also ones Hono would not read (not token68, a tab after Bearer)', async () => {
    t = await makeTestApp({ signTokens: ['plain-token', 'with!odd:chars#', 'a=b', 'pad=='] });
    for (const header of [
      'Bearer plain-token',
      'bearer plain-token',
      'Bearer   plain-token',
      'Bearer\tplain-token',
      'Bearer with!odd:chars#',
      'Bearer a=b',
      'Bearer pad==',
    ]) {
      expect((await sign(header)).status, header).toBe(200);
    }
  });

  it('refuses a missing or malformed header and a wrong token with 401 UNAUTHORIZED and its message', async () => {
    t = await makeTestApp({ signTokens: ['plain-token', 'with!odd:chars#'] });
    for (const [header, message] of [
      [undefined, MISSING],
      ['', MISSING],
      ['Bearer', MISSING],
      ['Basic cGxhaW4tdG9rZW4=', MISSING],
      ['Bearerplain-token', MISSING],
      ['Bearer plain-token extra', MISSING],
      ['Bearer plain-toke', INVALID],
      ['Bearer plain-token-longer', INVALID],
      ['Bearer with!odd:chars', INVALID],
      ['Bearer pad==', INVALID],
    ] as const) {
      expect(await sign(header), String(header)).toEqual({
        status: 401,
        body: { success: false, error: 'UNAUTHORIZED', message },
      });
    }
  });
});
