import { findToken } from '@siegel/core/auth';
import type { MiddlewareHandler } from 'hono';
import {
  checkUploadToken,
  hashUploadToken,
  looksLikeUploadToken,
  useUploadToken,
} from '../../signing/upload-tokens.js';
import type { UploadTokenStore } from '../../storage/upload-token-store.js';
import { signAuth } from './sign-auth.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Context variables: the hash of the upload token a request came with (none for a sign token). */
export type UploadAuthVariables = { uploadTokenHash: string | undefined };

/**
 * The token check of the upload routes: a `SIGN_API_TOKENS` token (through {@link signAuth}, unchanged), or
 * a minted upload token (`sut_…`) from its own origin, not expired, with a use left. Nothing is taken from
 * an upload token here; {@link takeUploadTokenUse} takes the use once the upload is admitted.
 */
export function uploadAuth(
  signTokens: readonly string[],
  store: UploadTokenStore,
): MiddlewareHandler<{ Variables: UploadAuthVariables }> {
  const bySignToken = signAuth(signTokens);
  return async function uploadAuthMiddleware(c, next) {
    const token = BEARER.exec(c.req.header('Authorization') ?? '')?.[1];
    // A sign token that happens to look like an upload token stays a sign token.
    if (token === undefined || !looksLikeUploadToken(token) || findToken(token, signTokens) !== undefined) {
      c.set('uploadTokenHash', undefined);
      return bySignToken(c, next);
    }
    const hash = hashUploadToken(token);
    await checkUploadToken(store, hash, c.req.header('Origin'));
    c.set('uploadTokenHash', hash);
    await next();
  };
}

/**
 * Take one use of the request's upload token (if it came with one): placed after admission, so an upload
 * refused by the rate limit (429) or for room (503) takes nothing, and any admitted one takes a use, whatever
 * its answer (200, 409, 413, 422 …).
 */
export function takeUploadTokenUse(
  store: UploadTokenStore,
): MiddlewareHandler<{ Variables: UploadAuthVariables }> {
  return async function takeUploadTokenUseMiddleware(c, next) {
    const hash = c.get('uploadTokenHash');
    if (hash !== undefined) await useUploadToken(store, hash);
    await next();
  };
}
