import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ADMIN_TOKEN, API_TOKEN, PASSPHRASE, setupApp } from './helpers.js';

// Timeouts (docs/testing.md): NIP-49 scrypt key derivations (log N 16): seconds of CPU each, more on a loaded machine
vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

const ORIGIN = 'http://localhost';

function form(fields: Record<string, string>, cookie?: string, origin = ORIGIN): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      ...(cookie && { cookie }),
    },
    body: new URLSearchParams(fields).toString(),
  };
}

async function signIn(app: Awaited<ReturnType<typeof setupApp>>['app']): Promise<string> {
  const res = await app.request('/admin/login', form({ token: ADMIN_TOKEN }));
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  expect(cookie).not.toContain(ADMIN_TOKEN);
  return cookie.split(';')[0] ?? '';
}

describe('admin dashboard', () => {
  it('shows the sign-in form until signed in with the admin token', async () => {
    const { app } = await setupApp();
    const page = await (await app.request('/admin')).text();
    expect(page).toContain('name="token"');
    expect(page).not.toContain('cold');
    expect((await app.request('/admin/login', form({ token: API_TOKEN }))).status).toBe(401);
    expect((await app.request('/admin/login', form({ token: '' }))).status).toBe(401);
  });

  it('lists keys with their lock state and unlocks and locks them', async () => {
    // Only `Date` is faked (the key store's throttle reads `Date.now`, set before the store is opened): the
    // 0.5 s wait after a wrong passphrase ends when the test moves the clock, not by sleeping.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { app, store } = await setupApp();
    const cookie = await signIn(app);
    const page = await (await app.request('/admin', { headers: { cookie } })).text();
    expect(page).toMatch(/<tr data-key="cold">.*locked/s);
    expect(page).toContain(store.get('cold').npub);

    const wrong = await app.request(
      '/admin/keys/cold/unlock',
      form({ passphrase: 'wrong passphrase' }, cookie),
    );
    expect(wrong.headers.get('location')).toBe('/admin?notice=forbidden&key=cold');
    expect(store.get('cold').locked).toBe(true);
    vi.advanceTimersByTime(520);
    const ok = await app.request('/admin/keys/cold/unlock', form({ passphrase: PASSPHRASE }, cookie));
    expect(ok.headers.get('location')).toBe('/admin?notice=unlocked&key=cold');
    expect(store.get('cold').locked).toBe(false);
    const notice = await (
      await app.request('/admin?notice=unlocked&key=cold', { headers: { cookie } })
    ).text();
    expect(notice).toContain('Key cold is unlocked.');

    await app.request('/admin/keys/cold/lock', form({}, cookie));
    expect(store.get('cold').locked).toBe(true);
  });

  it('refuses actions without a session or from another origin', async () => {
    const { app, store } = await setupApp();
    const cookie = await signIn(app);
    await app.request('/admin/keys/cold/unlock', form({ passphrase: PASSPHRASE }));
    expect(store.get('cold').locked).toBe(true);
    const crossSite = await app.request(
      '/admin/keys/cold/unlock',
      form({ passphrase: PASSPHRASE }, cookie, 'https://evil.example'),
    );
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(store.get('cold').locked).toBe(true);
  });

  it('escapes what it shows and ends the session on sign-out', async () => {
    const { app } = await setupApp();
    const cookie = await signIn(app);
    const page = await (
      await app.request('/admin?notice=unlocked&key=<script>', { headers: { cookie } })
    ).text();
    expect(page).not.toContain('<script>');
    expect(
      (await app.request('/admin', { headers: { cookie } })).headers.get('content-security-policy'),
    ).toMatch(/default-src 'none'/);
    await app.request('/admin/logout', form({}, cookie));
    expect(await (await app.request('/admin', { headers: { cookie } })).text()).toContain('name="token"');
  });
});
