import { findToken } from '@siegel/core/auth';
import type { MiddlewareHandler } from 'hono';
import { BunkerError } from './errors.js';

/** Who a request speaks for: the API token signs and lists; the admin token manages keys. */
export type Role = 'api' | 'admin';

/** Hono environment of the bunker's routes. */
export type BunkerEnv = { Variables: { role: Role } };

/** The least length of a token, so that a weak one is refused at start. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Middleware: read `Authorization: Bearer <token>`, compare it in constant time with both tokens, and set
 * `c.var.role`; then allow only the given roles.
 *
 * @throws {BunkerError} `unauthorized` (no or unknown token), `forbidden` (a known token of the wrong role).
 */
export function tokenAuth(
  tokens: { apiToken: string; adminToken: string },
  allowed: readonly Role[],
): MiddlewareHandler<BunkerEnv> {
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
    // findToken compares with both, always, so the time does not tell which one matched.
    const found = findToken(given, [tokens.apiToken, tokens.adminToken]);
    const role: Role | undefined =
      found === undefined ? undefined : found === tokens.adminToken ? 'admin' : 'api';
    if (!role) throw new BunkerError('unauthorized', 'Invalid token');
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
