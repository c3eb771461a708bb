// The API's error answer (`ApiError`: status, code, JSON body) and its codes. Only http/ knows it: the rooms
// below throw domain errors, and `error-answers.ts` turns them into these.
import { SUPPORTED_FORMATS } from '@siegel/formats';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Error codes of the sign API (the existing VisionFusen API's codes, kept so its clients work unchanged, and
 * `SERVER_BUSY`, the admission control's 503, `STORE_UNAVAILABLE`, a store's 503, `EVENT_REFUSED`, the signer's refusal of this one event, and
 * `BAD_HEADER`, a Blossom preflight's missing or malformed `X-Content-Length`).
 */
export type ApiErrorCode =
  | 'NO_FILE'
  | 'FILE_TOO_LARGE'
  | 'INVALID_FORMAT'
  | 'AUTHOR_REQUIRED'
  | 'ALREADY_SIGNED'
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'INVALID_HASH'
  | 'BAD_HEADER'
  | 'NOT_FOUND'
  | 'FILE_ALTERED'
  | 'RECORD_ALTERED'
  | 'BUNKER_UNAVAILABLE'
  | 'EVENT_REFUSED'
  | 'SERVER_BUSY'
  // The database or the object storage cannot be reached (storage/store-errors.ts): 503 with Retry-After.
  | 'STORE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  // Upload tokens for browsers (upload-tokens.ts).
  | 'UPLOAD_TOKEN_EXPIRED'
  | 'UPLOAD_TOKEN_USED_UP'
  | 'UPLOAD_TOKEN_ORIGIN'
  | 'INVALID_TOKEN_REQUEST'
  | 'ORIGIN_NOT_ALLOWED'
  // Verify by URL (pages/page-checks.ts): the address, the page, the rate per target host, hash given with url.
  | 'INVALID_URL'
  | 'PAGE_UNAVAILABLE'
  | 'HOST_RATE_LIMITED'
  | 'INVALID_QUERY';

/**
 * An error the API answers as `{ success: false, error: code, message, ...extra }` with `status`.
 *
 * @example
 * ```ts
 * throw new ApiError(422, 'AUTHOR_REQUIRED', 'The file names no author');
 * ```
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ApiErrorCode;
  readonly extra: Record<string, unknown>;

  constructor(
    status: ContentfulStatusCode,
    code: ApiErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  /** The JSON body of this error. */
  toJSON(): Record<string, unknown> {
    return { success: false, error: this.code, message: this.message, ...this.extra };
  }
}

/** `INVALID_FORMAT` (422: a supported type whose bytes are broken; 415: an unsupported type). */
export function invalidFormat(message: string, status: 415 | 422 = 422): ApiError {
  return new ApiError(status, 'INVALID_FORMAT', message, { supported: [...SUPPORTED_FORMATS] });
}
