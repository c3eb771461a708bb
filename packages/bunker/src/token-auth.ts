import { findToken } from '@siegel/core/auth';
import type { MiddlewareHandler } from 'hono';
import { clientAddress } from './client-address.js';
import { BunkerError } from './errors.js';
import { Throttle } from './throttle.js';

/** Who a request speaks for: the API token signs and lists; the admin token manages keys. */
export type Role = 'api' | 'admin';

/** Hono environment of the bunker's routes. */
export type BunkerEnv = { Variables: { role: Role } };

/** The least length of a token, so that a weak one is refused at start. */
export const MIN_TOKEN_LENGTH = 16;

/** Wrong tokens (Bearer or dashboard sign-in) one client address may send before it has to wait. */
export const FREE_TOKEN_FAILURES = 5;

/**
 * The throttle of token guesses, shared by the API and the dashboard sign-in: per client address
 * (`clientAddress`), the first {@link FREE_TOKEN_FAILURES} wrong tokens cost nothing, then each one makes
 * that address wait 1 s, doubling up to 60 s; refused attempts do not extend the wait, and 15 minutes
 * without a wrong token forget the count.
 */
export function createTokenThrottle(now?: () => number): Throttle {
  return new Throttle({
    freeFailures: FREE_TOKEN_FAILURES,
    baseMs: 1000,
    maxMs: 60_000,
    ...(now && { now }),
    message: (client, seconds) =>
      `Too many wrong tokens from \`${client}\`: retry in ${seconds} s (Retry-After)`,
  });
}

/** The tokens a {@link tokenAuth} checks, and the throttle of wrong ones. */
export interface TokenAuthOptions {
  apiToken: string;
  adminToken: string;
  /** Counts wrong tokens per client address (see {@link createTokenThrottle}). */
  throttle: Throttle;
}

/** What every `/api` route group is built from: the tokens and their throttle, and the body limit. */
export interface ApiRouteDeps extends TokenAuthOptions {
  /** Limits the body; runs after the token check. */
  limitBody: MiddlewareHandler;
}

/**
 * Middleware: read `Authorization: Bearer <token>`, compare it in constant time with both tokens, and set
 * `c.var.role`; then allow only the given roles. A client address that sent too many wrong tokens is
 * refused before its token is compared, whatever the token.
 *
 * @throws {BunkerError} `unauthorized` (no or unknown token), `forbidden` (a known token of the wrong role),
 *   `too_many_attempts` (429 with `Retry-After`: this address is throttled after wrong tokens).
 */
export function tokenAuth(options: TokenAuthOptions, allowed: readonly Role[]): MiddlewareHandler<BunkerEnv> {
  const tokens = { apiToken: options.apiToken, adminToken: options.adminToken };
  const throttle = options.throttle;
  for (const [name, token] of Object.entries(tokens)) {
    if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH) {
      throw new TypeError(`\`${name}\` must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
    }
  }
  if (tokens.apiToken === tokens.adminToken) throw new TypeError('`apiToken` and `adminToken` must differ');
  return async function tokenAuthHandler(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!match) {
      throw new BunkerError('unauthorized', 'Missing `Authorization: Bearer <token>` header');
    }
    const given = match[1] ?? '';
    const client = clientAddress(c);
    throttle.check(client);
    // findToken compares with both, always, so the time does not tell which one matched.
    const found = findToken(given, [tokens.apiToken, tokens.adminToken]);
    const role: Role | undefined =
      found === undefined ? undefined : found === tokens.adminToken ? 'admin' : 'api';
    if (!role) {
      throttle.fail(client);
      throw new BunkerError('unauthorized', 'Invalid token');
    }
    // A right token does not clear the count: a client holding the API token could otherwise reset it
    // between guesses at the admin token. The count is forgotten 15 minutes after the last wrong one.
    if (!allowed.includes(role)) {
      throw new BunkerError(
        'forbidden',
        role === 'api' ? 'This route needs the admin token' : 'This route needs the API token',
      );
    }
    c.set('role', role);
    await next();
  };
}
