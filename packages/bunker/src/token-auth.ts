import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { BunkerError } from './errors.js';

/** Who a request speaks for: the API token signs and lists; the admin token manages keys. */
export type Role = 'api' | 'admin';

/** Hono environment of the bunker's routes. */
export type BunkerEnv = { Variables: { role: Role } };

/** The least length of a token, so that a weak one is refused at start. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Compare two strings in constant time (both are hashed first, so their lengths do not leak either).
 *
 * @example
 * ```ts
 * tokensEqual(given, expected); // true or false, in the same time
 * ```
 */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

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
    // Compare with both, always, so the time does not tell which one matched.
    const isApi = tokensEqual(given, tokens.apiToken);
    const isAdmin = tokensEqual(given, tokens.adminToken);
    const role: Role | undefined = isAdmin ? 'admin' : isApi ? 'api' : undefined;
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
