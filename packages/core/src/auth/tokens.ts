// auth/ owns the one comparison of secret tokens in Siegel: the bunker's API and admin tokens and the file
// server's sign tokens are all checked here, so a timing leak can only ever be fixed in one place. The
// bunker and the file server import this file as `@siegel/core/auth`; the HTTP part around it (reading
// `Authorization: Bearer …`, the error answer) is each service's own, through Hono's middleware.
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Compare a given token with the expected one in constant time: both are hashed first (SHA-256), so
 * neither their content nor their lengths leak through timing.
 *
 * @example
 * ```ts
 * tokensEqual(given, expected); // true or false, in the same time
 * ```
 */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected)) && given.length === expected.length;
}

/**
 * The first of `expected` that `given` equals, compared with every one of them (no early exit), so the
 * time does not tell which one matched or how many there are before it; `undefined` when none does.
 *
 * @example
 * ```ts
 * const role = findToken(given, [apiToken, adminToken]) === adminToken ? 'admin' : 'api';
 * ```
 */
export function findToken<T extends string>(given: string, expected: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const token of expected) if (tokensEqual(given, token) && found === undefined) found = token;
  return found;
}
