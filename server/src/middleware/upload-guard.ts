import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { admitUploads, type UploadAdmission } from './admission.js';
import { rateLimit } from './rate-limit.js';
import { MULTIPART_OVERHEAD, readUpload, type Upload } from './read-upload.js';
import { signAuth } from './sign-auth.js';

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
  /** The rate limit, when other upload routes share it too (Blossom); default one of `rateLimitPerMinute`. */
  rateLimiter?: MiddlewareHandler;
}

/**
 * The one gate in front of every upload route (`POST /api/sign-image-v2`, `POST /api/inspect`), built once
 * and shared by them, so they share its budgets: the rate limit per address (counted before the token is
 * checked, which throttles token guessing too), the sign token (checked before a byte of the body is read),
 * the admission control (uploads in flight, bytes buffered), then the body read (`readUpload`).
 *
 * @example
 * ```ts
 * const guard = uploadGuard({ signTokens, maxUploadBytes, rateLimitPerMinute: 60, admission });
 * app.post('/sign-image-v2', guard, handler);
 * app.post('/inspect', guard, otherHandler);
 * ```
 */
export function uploadGuard(
  options: UploadGuardOptions,
): MiddlewareHandler<{ Variables: { upload: Upload } }> {
  return every(
    options.rateLimiter ?? rateLimit({ limit: options.rateLimitPerMinute }),
    signAuth(options.signTokens),
    admitUploads(options.admission, options.maxUploadBytes + MULTIPART_OVERHEAD),
    readUpload(options.maxUploadBytes) as MiddlewareHandler,
  );
}
