// The one mapper from the domain's errors to the API's answers: each domain error kind has its status and
// code here, and nowhere else. A `Record` over each kind keeps the mapping total (a new kind does not compile
// until it has an answer). `createApp`'s error handler answers through it; `X-Reason` (Blossom) is the
// answer's message.
import { FormatError, type FormatErrorKind } from '@siegel/formats';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { EmptyFileError } from '../metadata/analyze-file.js';
import { PageCheckError, type PageCheckErrorKind } from '../pages/page-checks.js';
import { SigningError, type SigningErrorKind } from '../signing/signing-error.js';
import { UploadTokenError, type UploadTokenErrorKind } from '../signing/upload-tokens.js';
import { ApiError, type ApiErrorCode, invalidFormat } from './api-error.js';

/** The answer to each kind of refused upload token or token request. */
export const UPLOAD_TOKEN_ANSWERS: Record<
  UploadTokenErrorKind,
  { status: ContentfulStatusCode; code: ApiErrorCode }
> = {
  invalid_request: { status: 400, code: 'INVALID_TOKEN_REQUEST' },
  origin_not_allowed: { status: 422, code: 'ORIGIN_NOT_ALLOWED' },
  unknown: { status: 401, code: 'UNAUTHORIZED' },
  wrong_origin: { status: 403, code: 'UPLOAD_TOKEN_ORIGIN' },
  expired: { status: 401, code: 'UPLOAD_TOKEN_EXPIRED' },
  used_up: { status: 401, code: 'UPLOAD_TOKEN_USED_UP' },
};

/** The answer to each kind of signing refusal. */
export const SIGNING_ANSWERS: Record<SigningErrorKind, { status: ContentfulStatusCode; code: ApiErrorCode }> =
  {
    author_required: { status: 422, code: 'AUTHOR_REQUIRED' },
    already_signed: { status: 409, code: 'ALREADY_SIGNED' },
    event_refused: { status: 422, code: 'EVENT_REFUSED' },
    bunker_unavailable: { status: 503, code: 'BUNKER_UNAVAILABLE' },
    bunker_mismatch: { status: 502, code: 'BUNKER_UNAVAILABLE' },
  };

/**
 * The status of `INVALID_FORMAT` for each kind of unreadable file: 415 for a type the service does not sign,
 * 422 for a supported type it cannot read (damaged, encrypted, too complex, past a bound: `limit` names it).
 */
export const FORMAT_ANSWERS: Record<FormatErrorKind, 415 | 422> = {
  unsupported: 415,
  damaged: 422,
  encrypted: 422,
  too_complex: 422,
  limit: 422,
};

/** The answer to each kind of page not checked (verify by URL); `retryAfterSeconds` goes to `Retry-After`. */
export const PAGE_CHECK_ANSWERS: Record<
  PageCheckErrorKind,
  { status: ContentfulStatusCode; code: ApiErrorCode }
> = {
  invalid_url: { status: 400, code: 'INVALID_URL' },
  unavailable: { status: 502, code: 'PAGE_UNAVAILABLE' },
  host_busy: { status: 503, code: 'HOST_RATE_LIMITED' },
  busy: { status: 503, code: 'SERVER_BUSY' },
};

/**
 * The API's answer to `error`: itself when it is already an `ApiError`, the mapped answer for a domain error,
 * `undefined` for anything else (the caller's 500 or other handling).
 *
 * @example
 * ```ts
 * answerFor(new UploadTokenError('expired', 'The upload token expired …'))?.status; // 401
 * answerFor(new FormatError('limit', 'pdf', 'Too many objects', 'pdf_objects'))?.toJSON().limit; // 'pdf_objects'
 * ```
 */
export function answerFor(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof UploadTokenError) {
    const { status, code } = UPLOAD_TOKEN_ANSWERS[error.kind];
    return new ApiError(status, code, error.message, error.details);
  }
  if (error instanceof FormatError) {
    const refusal = invalidFormat(error.message, FORMAT_ANSWERS[error.kind]);
    if (error.limit !== undefined) refusal.extra.limit = error.limit;
    return refusal;
  }
  if (error instanceof EmptyFileError) return new ApiError(400, 'NO_FILE', error.message);
  if (error instanceof PageCheckError) {
    const { status, code } = PAGE_CHECK_ANSWERS[error.kind];
    return new ApiError(status, code, error.message);
  }
  if (error instanceof SigningError) {
    const { status, code } = SIGNING_ANSWERS[error.kind];
    return new ApiError(status, code, error.message, error.details);
  }
  return undefined;
}
