import { tokensEqual } from '@siegel/core/auth';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { AdminSessions } from '../admin-sessions.js';
import { clientAddress } from '../client-address.js';
import { BunkerError } from '../errors.js';
import { isValidKeyName } from '../key-name.js';
import type { KeyStore } from '../key-store.js';
import type { Nip46Service } from '../nip46/nip46-service.js';
import { type Nip46Permissions, parseKinds } from '../nip46/permissions.js';
import type { Throttle } from '../throttle.js';
import { DashboardPage, type Nip46View, type Notice, SignInPage } from './dashboard-view.js';

const COOKIE = 'siegel_admin';

/**
 * Notices the dashboard shows after a redirect, by code (no free text travels in the URL). A `Map`, so a
 * code from the query string never finds a prototype member (`__proto__`, `toString`, …).
 */
const NOTICES = new Map<string, (key: string) => Notice>([
  ['unlocked', (key) => ({ kind: 'ok', text: `Key ${key} is unlocked.` })],
  ['locked', (key) => ({ kind: 'ok', text: `Key ${key} is locked.` })],
  ['forbidden', (key) => ({ kind: 'error', text: `Wrong passphrase for key ${key}: it stays locked.` })],
  [
    'too_many_attempts',
    (key) => ({ kind: 'error', text: `Too many wrong passphrases for key ${key}: wait and retry.` }),
  ],
  ['key_not_found', (key) => ({ kind: 'error', text: `No key named ${key}.` })],
  ['key_not_lockable', (key) => ({ kind: 'error', text: `Key ${key} cannot be locked.` })],
  ['revoked', (key) => ({ kind: 'ok', text: `The NIP-46 connection to key ${key} is revoked.` })],
  ['not_found', (key) => ({ kind: 'error', text: `No such NIP-46 connection to key ${key}.` })],
]);

/**
 * The admin dashboard under `/admin`: a server-rendered page (Hono JSX, plain HTML forms, no script).
 * Sign in with the admin token; a session cookie (`HttpOnly`, `SameSite=Strict`, path `/admin`) holds a
 * random session id. Form posts are checked for a same-origin `Origin`.
 */
export function createDashboard(deps: {
  store: KeyStore;
  /** The NIP-46 side: its connections are listed, revocable, and new URIs made. */
  nip46?: Nip46Service | undefined;
  adminToken: string;
  /** Counts wrong tokens per client address, with the API's Bearer tokens. */
  throttle: Throttle;
  /** Limits a form body; runs after the session check (on sign-in: first, a form holds the token). */
  limitForm: MiddlewareHandler;
}): Hono {
  const app = new Hono();
  const sessions = new AdminSessions();

  app.use(async function dashboardHeaders(c, next) {
    await next();
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
  });
  app.use(csrf());

  const signedIn = (c: Context) => sessions.has(getCookie(c, COOKIE));

  app.get('/', async (c) => {
    if (!signedIn(c)) return c.html(<SignInPage />);
    const key = c.req.query('key') ?? '';
    const make = NOTICES.get(c.req.query('notice') ?? '');
    let notice = make && isValidKeyName(key) ? make(key) : undefined;
    // The reason a key cannot be locked comes from the store, not the URL.
    const refusal = notice && c.req.query('notice') === 'key_not_lockable' && deps.store.lockRefusal(key);
    if (notice && refusal) notice = { ...notice, text: plain(refusal) };
    return c.html(<DashboardPage keys={dashboardKeys()} notice={notice} nip46={await nip46View()} />);
  });

  const dashboardKeys = () =>
    deps.store.list().map((k) => {
      const reason = deps.store.lockRefusal(k.name);
      return reason === undefined ? k : { ...k, lockRefusal: plain(reason) };
    });
  const nip46View = async (newUri?: Nip46View['newUri']): Promise<Nip46View | undefined> => {
    const nip46 = deps.nip46;
    if (!nip46) return undefined;
    const [connections, pending] = await Promise.all([nip46.connections(), nip46.pending()]);
    return {
      relays: nip46.relays,
      defaults: nip46.defaults,
      connections,
      pending,
      ...(newUri && { newUri }),
    };
  };

  // A throttled address is answered before its form is read.
  const notThrottled: MiddlewareHandler = async (c, next) => {
    try {
      deps.throttle.check(clientAddress(c));
    } catch (error) {
      if (!(error instanceof BunkerError) || error.retryAfter === undefined) throw error;
      c.header('Retry-After', String(error.retryAfter));
      return c.html(<SignInPage error={`Too many wrong tokens: retry in ${error.retryAfter} s.`} />, 429);
    }
    await next();
  };

  app.post('/login', notThrottled, deps.limitForm, async (c) => {
    const form = await readForm(c);
    const token = typeof form.token === 'string' ? form.token : '';
    if (!tokensEqual(token, deps.adminToken)) {
      deps.throttle.fail(clientAddress(c));
      return c.html(<SignInPage error="Wrong admin token." />, 401);
    }
    setCookie(c, COOKIE, sessions.create(), {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/admin',
      secure: new URL(c.req.url).protocol === 'https:',
    });
    return c.redirect('/admin', 303);
  });

  app.post('/logout', (c) => {
    sessions.delete(getCookie(c, COOKIE));
    deleteCookie(c, COOKIE, { path: '/admin' });
    return c.redirect('/admin', 303);
  });

  // Without a session, back to the sign-in page before anything of the body is read.
  const requireSession: MiddlewareHandler = async (c, next) => {
    if (!signedIn(c)) return c.redirect('/admin', 303);
    await next();
  };

  app.post('/keys/:name/:action{unlock|lock}', requireSession, deps.limitForm, async (c) => {
    const name = c.req.param('name');
    const action = c.req.param('action');
    let outcome: string;
    try {
      if (!isValidKeyName(name)) throw new BunkerError('key_not_found', 'invalid name');
      if (action === 'unlock') {
        const form = await readForm(c);
        deps.store.unlock(name, typeof form.passphrase === 'string' ? form.passphrase : '');
        outcome = 'unlocked';
      } else {
        deps.store.lock(name);
        outcome = 'locked';
      }
    } catch (error) {
      if (!(error instanceof BunkerError) || !NOTICES.has(error.code)) throw error;
      outcome = error.code;
    }
    const shown = isValidKeyName(name) ? name : '';
    return c.redirect(`/admin?notice=${outcome}&key=${encodeURIComponent(shown)}`, 303);
  });

  app.post('/nip46/revoke', requireSession, deps.limitForm, async (c) => {
    const form = await readForm(c);
    const key = typeof form.key === 'string' ? form.key : '';
    const pubkey = typeof form.pubkey === 'string' ? form.pubkey : '';
    let outcome = 'revoked';
    try {
      if (!deps.nip46 || !isValidKeyName(key)) throw new BunkerError('not_found', 'no such connection');
      await deps.nip46.revoke(key, pubkey);
    } catch (error) {
      if (!(error instanceof BunkerError) || error.code !== 'not_found') throw error;
      outcome = 'not_found';
    }
    const shown = isValidKeyName(key) ? key : '';
    return c.redirect(`/admin?notice=${outcome}&key=${encodeURIComponent(shown)}`, 303);
  });

  // The new URI carries a one-time secret: it is shown in this answer only, never put in a URL.
  app.post('/nip46/uri', requireSession, deps.limitForm, async (c) => {
    const form = await readForm(c);
    const key = typeof form.key === 'string' ? form.key : '';
    let notice: Notice | undefined;
    let newUri: Nip46View['newUri'];
    try {
      if (!deps.nip46) throw new BunkerError('not_found', 'NIP-46 is off: start the bunker with --relay.');
      if (!isValidKeyName(key)) throw new BunkerError('key_not_found', 'No such key.');
      const permissions: Nip46Permissions = {
        kinds: parseKinds(typeof form.kinds === 'string' ? form.kinds : '', 'kinds'),
        nip44: form.nip44 === 'on',
        nip04: form.nip04 === 'on',
      };
      newUri = { key, ...(await deps.nip46.newUri(key, permissions)), permissions };
    } catch (error) {
      if (!(error instanceof BunkerError)) throw error;
      notice = { kind: 'error', text: plain(error.message) };
    }
    return c.html(
      <DashboardPage keys={dashboardKeys()} notice={notice} nip46={await nip46View(newUri)} />,
      notice ? 400 : 200,
    );
  });

  return app;
}

/**
 * The fields of a dashboard form.
 *
 * @throws {BunkerError} `invalid_request` when the body cannot be read as a form (e.g. a broken multipart
 *   body), instead of the parser's own error.
 */
async function readForm(c: Context): Promise<Record<string, unknown>> {
  try {
    return await c.req.parseBody();
  } catch (cause) {
    throw new BunkerError('invalid_request', 'The form could not be read: send it as the dashboard does', {
      cause,
    });
  }
}

/** A message without its Markdown-style backticks, for the page. */
function plain(message: string): string {
  return message.replaceAll('`', '');
}
