import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { UploadTokenStore } from '../../storage/upload-token-store.js';
import { admitUploads, type UploadAdmission } from './admission.js';
import { rateLimit } from './rate-limit.js';
import { MULTIPART_OVERHEAD, readUpload, type Upload } from './read-upload.js';
import { takeUploadTokenUse, uploadAuth } from './upload-auth.js';

/** Options of {@link uploadGuard}. */
export interface UploadGuardOptions {
  /** Tokens allowed to upload (`SIGN_API_TOKENS`). */
  signTokens: readonly string[];
  /** Upload limit in bytes (the file; its multipart framing may add 64 KiB). */
  maxUploadBytes: number;
  /** Uploads per client address per minute, whatever the route. */
  rateLimitPerMinute: number;
  /** The admission control every upload route shares. */
  admission: UploadAdmission;
  /** Where minted upload tokens are kept (the record store). */
  uploadTokens: UploadTokenStore;
  /** The rate limit, when other upload routes share it too (Blossom); default one of `rateLimitPerMinute`. */
  rateLimiter?: MiddlewareHandler;
}

/**
 * The one gate in front of every upload route (`POST /api/sign-image-v2`, `POST /api/inspect`), built once
 * and shared by them, so they share its budgets: the rate limit per address (counted before the token is
 * checked, which throttles token guessing too), the token — a sign token, or a minted upload token from its
 * origin — (checked before a byte of the body is read), the admission control (uploads in flight, bytes
 * buffered), one use of an upload token taken, then the body read (`readUpload`). An upload refused before
 * its body is read is answered at once, and its body then read and thrown away (`discardUnreadBody`, in front
 * of every route), so that its client reads the answer.
 *
 * @example
 * ```ts
 * const guard = uploadGuard({ signTokens, maxUploadBytes, rateLimitPerMinute: 60, admission, uploadTokens });
 * app.post('/sign-image-v2', guard, handler);
 * app.post('/inspect', guard, otherHandler);
 * ```
 */
export function uploadGuard(
  options: UploadGuardOptions,
): MiddlewareHandler<{ Variables: { upload: Upload } }> {
  return every(
    options.rateLimiter ?? rateLimit({ limit: options.rateLimitPerMinute }),
    uploadAuth(options.signTokens, options.uploadTokens),
    admitUploads(options.admission, options.maxUploadBytes + MULTIPART_OVERHEAD),
    takeUploadTokenUse(options.uploadTokens),
    readUpload(options.maxUploadBytes) as MiddlewareHandler,
  );
}
