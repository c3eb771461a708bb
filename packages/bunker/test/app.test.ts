import * as nip19 from 'nostr-tools/nip19';
import * as nip49 from 'nostr-tools/nip49';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ADMIN_TOKEN, API_TOKEN, PASSPHRASE, setupApp, template } from './helpers.js';

// Timeouts (docs/testing.md): NIP-49 scrypt key derivations (log N 16): seconds of CPU each, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

async function errorOf(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, code: body.error.code, message: body.error.message };
}

describe('API v1', () => {
  it('lists keys without secrets', async () => {
    const { call } = await setupApp();
    const res = await call('GET', '/api/keys');
    expect(res.status).toBe(200);
    const keys = (await res.json()) as Record<string, unknown>[];
    expect(keys.map((k) => [k.name, k.locked])).toEqual([
      ['cold', true],
      ['default', false],
    ]);
    for (const key of keys)
      expect(Object.keys(key).sort()).toEqual(['created_at', 'locked', 'name', 'npub', 'pubkey']);
  });

  it('signs a batch in order with the key, without trusting pubkey/id/sig from the caller', async () => {
    const { call, store } = await setupApp();
    const templates = Array.from({ length: 20 }, (_, i) => ({
      ...template(i),
      pubkey: 'f'.repeat(64),
      id: 'x',
      sig: 'y',
    }));
    const res = await call('POST', '/api/keys/default/sign', { events: templates });
    expect(res.status).toBe(200);
    const { events } = (await res.json()) as { events: import('nostr-tools').Event[] };
    expect(events.map((e) => e.created_at)).toEqual(templates.map((t) => t.created_at));
    for (const e of events) {
      expect(e.pubkey).toBe(store.get('default').pubkey);
      expect(verifyEvent(e)).toBe(true);
    }
  });

  it('answers unknown keys with 404 and locked keys with 423', async () => {
    const { call } = await setupApp();
    expect(await errorOf(await call('POST', '/api/keys/nope/sign', { events: [template()] }))).toMatchObject({
      status: 404,
      code: 'key_not_found',
    });
    expect(await errorOf(await call('POST', '/api/keys/cold/sign', { events: [template()] }))).toMatchObject({
      status: 423,
      code: 'key_locked',
    });
  });

  it('needs a valid token, and keeps the two roles apart', async () => {
    const { call } = await setupApp();
    expect((await errorOf(await call('GET', '/api/keys', undefined, null))).code).toBe('unauthorized');
    expect((await errorOf(await call('GET', '/api/keys', undefined, `${API_TOKEN}x`))).status).toBe(401);
    expect((await errorOf(await call('GET', '/api/keys', undefined, API_TOKEN.slice(0, -1)))).status).toBe(
      401,
    );
    const create = { name: 'new', generate: true, passphrase: PASSPHRASE };
    expect(await errorOf(await call('POST', '/api/keys', create))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(
      (await errorOf(await call('POST', '/api/keys/cold/unlock', { passphrase: PASSPHRASE }))).status,
    ).toBe(403);
    expect((await errorOf(await call('POST', '/api/keys/default/lock'))).status).toBe(403);
    expect((await errorOf(await call('DELETE', '/api/keys/default'))).status).toBe(403);
    const signAsAdmin = await call('POST', '/api/keys/default/sign', { events: [template()] }, ADMIN_TOKEN);
    expect((await errorOf(signAsAdmin)).status).toBe(403);
    expect((await call('GET', '/api/keys', undefined, ADMIN_TOKEN)).status).toBe(200);
  });

  it('manages keys with the admin token: create, unlock, lock, delete', async () => {
    // Only `Date` is faked (the key store's throttle reads `Date.now`, set before the store is opened): the
    // 0.5 s wait after a wrong passphrase ends when the test moves the clock, not by sleeping.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { call } = await setupApp();
    const created = await call(
      'POST',
      '/api/keys',
      { name: 'new', generate: true, passphrase: PASSPHRASE },
      ADMIN_TOKEN,
    );
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: 'new', locked: false });
    expect(await (await call('POST', '/api/keys/new/lock', undefined, ADMIN_TOKEN)).json()).toMatchObject({
      locked: true,
    });
    const wrong = await call('POST', '/api/keys/new/unlock', { passphrase: 'wrong passphrase' }, ADMIN_TOKEN);
    expect(await errorOf(wrong)).toMatchObject({ status: 403, code: 'forbidden' });
    const throttled = await call('POST', '/api/keys/new/unlock', { passphrase: PASSPHRASE }, ADMIN_TOKEN);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    vi.advanceTimersByTime(520);
    const unlocked = await call('POST', '/api/keys/new/unlock', { passphrase: PASSPHRASE }, ADMIN_TOKEN);
    expect(await unlocked.json()).toMatchObject({ name: 'new', locked: false });
    expect(await (await call('DELETE', '/api/keys/new', undefined, ADMIN_TOKEN)).json()).toEqual({
      deleted: 'new',
    });
    expect((await call('POST', '/api/keys/new/sign', { events: [] })).status).toBe(404);
  });

  it('imports an ncryptsec with its own (short) passphrase, but encrypts new keys only with long ones', async () => {
    const { call } = await setupApp();
    const secretKey = generateSecretKey();
    const ncryptsec = nip49.encrypt(secretKey, 'short', 10);
    const imported = await call(
      'POST',
      '/api/keys',
      { name: 'imp', import: ncryptsec, passphrase: 'short' },
      ADMIN_TOKEN,
    );
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ pubkey: getPublicKey(secretKey) });
    const weak = await call(
      'POST',
      '/api/keys',
      { name: 'weak', generate: true, passphrase: 'short' },
      ADMIN_TOKEN,
    );
    expect(await errorOf(weak)).toMatchObject({ status: 400, code: 'invalid_request' });
    const nsec = await call(
      'POST',
      '/api/keys',
      { name: 'weak', import: nip19.nsecEncode(secretKey), passphrase: 'short' },
      ADMIN_TOKEN,
    );
    expect((await errorOf(nsec)).message).toMatch(/at least 8 characters/);
  });

  it('answers the compatibility routes in their shapes', async () => {
    const { call } = await setupApp();
    const signed = await call('POST', '/api/sign', { keyName: 'default', event: template() });
    const body = (await signed.json()) as { success: boolean; event: import('nostr-tools').Event };
    expect(body.success).toBe(true);
    expect(verifyEvent(body.event)).toBe(true);
    expect(await (await call('GET', '/api/status')).json()).toEqual({ keys: { active: 1, locked: 1 } });
    const locked = await call('POST', '/api/sign', { keyName: 'cold', event: template() });
    expect(locked.status).toBe(423);
    expect(await locked.json()).toMatchObject({ success: false, error: { code: 'key_locked' } });
  });
});

describe('bad input', () => {
  const cases: [string, unknown, RegExp][] = [
    ['malformed JSON', '{"events": [', /not valid JSON/],
    ['an empty body', '', /empty/],
    ['a JSON array', '[]', /JSON object/],
    ['no events', { templates: [] }, /`events`/],
    ['a string kind', { events: [{ ...template(), kind: '1' }] }, /`events\[0\]\.kind`/],
    [
      'a fractional created_at',
      { events: [template(), { ...template(), created_at: 1.5 }] },
      /`events\[1\]\.created_at`/,
    ],
    ['tags not an array', { events: [{ ...template(), tags: {} }] }, /`events\[0\]\.tags`/],
    ['a number in a tag', { events: [{ ...template(), tags: [['e', 5]] }] }, /`events\[0\]\.tags\[0\]\[1\]`/],
    ['content missing', { events: [{ kind: 1, created_at: 1, tags: [] }] }, /`events\[0\]\.content`/],
    ['a null template', { events: [null] }, /`events\[0\]` must be an object/],
  ];
  for (const [what, body, message] of cases) {
    it(`answers ${what} with 400 invalid_request naming the problem`, async () => {
      const { call } = await setupApp();
      const error = await errorOf(await call('POST', '/api/keys/default/sign', body));
      expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(error.message).toMatch(message);
    });
  }

  it('answers a batch over the limit with 413, and an oversized body with 413', async () => {
    const { call } = await setupApp({ maxBatch: 10, maxBodyBytes: 4096 });
    const batch = await call('POST', '/api/keys/default/sign', {
      events: Array.from({ length: 11 }, (_, i) => template(i)),
    });
    expect(await errorOf(batch)).toMatchObject({ status: 413, code: 'batch_too_large' });
    const big = await call('POST', '/api/keys/default/sign', {
      events: [{ ...template(), content: 'x'.repeat(5000) }],
    });
    expect(await errorOf(big)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect((await call('POST', '/api/keys/default/sign', { events: [template()] })).status).toBe(200);
  });

  for (const path of [
    '/api/keys/..%2F..%2Fetc%2Fpasswd/sign',
    '/api/keys/a%00b/sign',
    '/api/keys/..%5C..%5Cx/sign',
    '/api/keys/%C3%A9/sign',
    '/api/keys/.hidden/sign',
  ]) {
    it(`refuses the key name in \`${path}\``, async () => {
      const { call } = await setupApp();
      const error = await errorOf(await call('POST', path, { events: [template()] }));
      expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(error.message).toMatch(/Invalid key name/);
    });
  }

  it('answers unknown routes with a JSON 404', async () => {
    const { call } = await setupApp();
    expect(await errorOf(await call('GET', '/nope'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await errorOf(await call('GET', '/api/keys/default/sign'))).toMatchObject({ status: 404 });
  });
});
