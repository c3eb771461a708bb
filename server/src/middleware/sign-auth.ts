import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';

/**
 * Require `Authorization: Bearer <token>` with one of `tokens` (from `SIGN_API_TOKENS`). Tokens are compared
 * as SHA-256 digests with `timingSafeEqual`, so neither content nor length leaks through timing. With no
 * tokens configured every request is refused.
 */
export function signAuth(tokens: readonly string[]): MiddlewareHandler {
  const digests = tokens.map((token) => createHash('sha256').update(token).digest());
  return async function signAuthMiddleware(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) {
      throw new ApiError(
        401,
        'UNAUTHORIZED',
        'Signing needs `Authorization: Bearer <token>` (a SIGN_API_TOKENS token)',
      );
    }
    const given = createHash('sha256')
      .update(match[1] as string)
      .digest();
    let allowed = false;
    for (const digest of digests) allowed = timingSafeEqual(digest, given) || allowed;
    if (!allowed) throw new ApiError(401, 'UNAUTHORIZED', 'The sign token is not valid');
    await next();
  };
}
