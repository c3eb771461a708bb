import { findToken } from '@siegel/core/auth';
import type { MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { ApiError } from '../api-error.js';

/** What this service has always read as `Bearer <token>`: any non-blank token, after any blank. */
const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** The tokens Hono's `bearerAuth` reads (RFC 6750 `token68`); it answers any other token as a bad header. */
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/;

const MISSING = 'Signing needs `Authorization: Bearer <token>` (a SIGN_API_TOKENS token)';
const INVALID = 'The sign token is not valid';

/**
 * Refuse with an {@link ApiError}: thrown from Hono's message option too (instead of returning a response to
 * it), so every refusal is answered by the app's one error handler — the same JSON and headers as before.
 */
function refuse(message: string): never {
  throw new ApiError(401, 'UNAUTHORIZED', message);
}

/**
 * Require `Authorization: Bearer <token>` with one of `tokens` (from `SIGN_API_TOKENS`), through Hono's
 * `bearerAuth`; each token is compared by `findToken` of `@siegel/core/auth` (SHA-256 digests compared in
 * constant time, against every configured token), so neither content nor length leaks through timing.
 * With no tokens configured every request is refused. Refusals are 401 `UNAUTHORIZED`.
 *
 * This stays a thin wrapper: `SIGN_API_TOKENS` has never restricted a token's characters, nor the blank
 * after `Bearer` to one space, while Hono's middleware reads only RFC 6750 `token68` tokens after one space
 * (and answers any other header as malformed, before `verifyToken`). A header this service has always read
 * but Hono cannot (a token with `!`, `#`, `:`…, or a tab after `Bearer`) is checked here by the same
 * comparison, with the same answers; every other header goes to Hono's middleware.
 */
export function signAuth(tokens: readonly string[]): MiddlewareHandler {
  const verifyToken = (given: string) => findToken(given, tokens) !== undefined;
  const honoAuth = bearerAuth({
    verifyToken,
    noAuthenticationHeader: { message: () => refuse(MISSING) },
    invalidAuthenticationHeader: { message: () => refuse(MISSING) },
    invalidToken: { message: () => refuse(INVALID) },
  });
  return async function signAuthMiddleware(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const token = BEARER.exec(header)?.[1];
    if (token === undefined || (TOKEN68.test(token) && header.charAt(6) === ' ')) return honoAuth(c, next);
    if (!verifyToken(token)) refuse(INVALID);
    await next();
  };
}
