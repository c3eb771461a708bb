/**
 * The error codes a Siegel server answers with (`{ success: false, error: CODE, message, …extra }`), as
 * `server/src/http/api-error.ts` declares them and docs/server-api.md lists them. `ALREADY_SIGNED` is among them,
 * but `sign` turns it into a result (`alreadySigned: true`), never an error.
 */
export type ServerErrorCode =
  | 'NO_FILE'
  | 'FILE_TOO_LARGE'
  | 'INVALID_FORMAT'
  | 'AUTHOR_REQUIRED'
  | 'ALREADY_SIGNED'
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'INVALID_HASH'
  | 'NOT_FOUND'
  | 'FILE_ALTERED'
  | 'RECORD_ALTERED'
  | 'BUNKER_UNAVAILABLE'
  | 'EVENT_REFUSED'
  | 'SERVER_BUSY'
  | 'STORE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  | 'BAD_REQUEST'
  | 'UPLOAD_TOKEN_EXPIRED'
  | 'UPLOAD_TOKEN_USED_UP'
  | 'UPLOAD_TOKEN_ORIGIN'
  | 'INVALID_TOKEN_REQUEST'
  | 'ORIGIN_NOT_ALLOWED'
  | 'BAD_HEADER'
  // Verify by URL (`GET /api/verify-page`), which the client does not call; `INVALID_QUERY` is `hash` with `url`.
  | 'INVALID_URL'
  | 'PAGE_UNAVAILABLE'
  | 'HOST_RATE_LIMITED'
  | 'INVALID_QUERY';

/**
 * Codes of errors the client raises itself, with no server code to carry: the server could not be reached
 * (`NETWORK_ERROR`), it answered something that is not a Siegel answer (`UNEXPECTED_RESPONSE`), an option
 * or argument is wrong (`INVALID_OPTIONS`), or `embedAuthor` cannot write into the bytes it was given
 * (`UNSUPPORTED_FORMAT`, `DAMAGED_FILE`, `ENCRYPTED_PDF`, `INVALID_AUTHOR`).
 */
export type ClientErrorCode =
  | 'NETWORK_ERROR'
  | 'UNEXPECTED_RESPONSE'
  | 'INVALID_OPTIONS'
  | 'UNSUPPORTED_FORMAT'
  | 'DAMAGED_FILE'
  | 'ENCRYPTED_PDF'
  | 'INVALID_AUTHOR';

/** What {@link SiegelApiError} is built from. */
export interface SiegelApiErrorInit {
  code: ServerErrorCode | ClientErrorCode | (string & {});
  message: string;
  /** The HTTP status of the server's answer; `undefined` when there was none. */
  status?: number;
  /** The answer's fields besides `success`, `error` and `message` (`limit`, `max_bytes`, `supported`, …). */
  details?: Record<string, unknown>;
  /** Seconds to wait before trying again, from `Retry-After` (or `retry_after`), when the server said. */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * Every error `@siegel/client` throws on purpose. `code` is the server's code (`AUTHOR_REQUIRED`, …) or a
 * client code ({@link ClientErrorCode}); `status` the HTTP status; `details` the answer's extra fields. Each
 * server code has a subclass (`AuthorRequiredError`, …), so both `instanceof` and `code` work.
 *
 * @example
 * ```ts
 * try {
 *   await client.sign(file);
 * } catch (error) {
 *   if (error instanceof AuthorRequiredError) console.log('write the author into the file first');
 *   else if (error instanceof SiegelApiError) console.log(error.code, error.status, error.message);
 *   else throw error;
 * }
 * ```
 */
export class SiegelApiError extends Error {
  readonly code: ServerErrorCode | ClientErrorCode | (string & {});
  readonly status: number | undefined;
  readonly details: Readonly<Record<string, unknown>>;
  readonly retryAfter: number | undefined;

  constructor(init: SiegelApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.retryAfter = init.retryAfter;
  }

  /** The reading limit the file went past (`INVALID_FORMAT` with a `limit`), e.g. `xmp_bytes`. */
  get limit(): string | undefined {
    const limit = this.details.limit;
    return typeof limit === 'string' ? limit : undefined;
  }
}

/** 400 `NO_FILE`: not multipart, no file in `file`, or an empty file. */
export class NoFileError extends SiegelApiError {}
/** 400 `BAD_REQUEST`: a request the server's framework rejected. */
export class BadRequestError extends SiegelApiError {}
/** 400 `BAD_HEADER`: Blossom's `HEAD /upload` got a malformed `X-Content-Length` (the client never sends it). */
export class BadHeaderError extends SiegelApiError {}
/** 400 `INVALID_HASH`: the hash is not 64 hexadecimal characters. */
export class InvalidHashError extends SiegelApiError {}
/** 401 `UNAUTHORIZED`: no token, a wrong token, or the server has no `SIGN_API_TOKENS`. */
export class UnauthorizedError extends SiegelApiError {}
/** 401 `UPLOAD_TOKEN_EXPIRED`: the upload token's time is up (`details.expired_at`); mint a new one. */
export class UploadTokenExpiredError extends SiegelApiError {}
/** 401 `UPLOAD_TOKEN_USED_UP`: the upload token made all its uploads (`details.uses`); mint a new one. */
export class UploadTokenUsedUpError extends SiegelApiError {}
/** 403 `UPLOAD_TOKEN_ORIGIN`: the upload token was minted for another origin (`details.origin`). */
export class UploadTokenOriginError extends SiegelApiError {}
/** 400 `INVALID_TOKEN_REQUEST`: `mintUploadToken` asked for a malformed origin, `uses` or `ttlSeconds`. */
export class InvalidTokenRequestError extends SiegelApiError {}
/** 422 `ORIGIN_NOT_ALLOWED`: the origin is not in the server's `SIGN_CORS_ORIGINS` (`details.origin`). */
export class OriginNotAllowedError extends SiegelApiError {}
/** 404 `NOT_FOUND`: nothing signed on this server has this hash. */
export class NotFoundError extends SiegelApiError {}
/** 410 `FILE_ALTERED`: the stored file no longer hashes to its hash. */
export class FileAlteredError extends SiegelApiError {}
/** 410 `RECORD_ALTERED`: the stored event no longer verifies (`details.reasons` says why). */
export class RecordAlteredError extends SiegelApiError {}

/** 413 `FILE_TOO_LARGE`: the file is larger than the server's `MAX_UPLOAD_BYTES` (`maxBytes`). */
export class FileTooLargeError extends SiegelApiError {
  /** The server's limit in bytes. */
  get maxBytes(): number | undefined {
    const value = this.details.max_bytes;
    return typeof value === 'number' ? value : undefined;
  }
}

/**
 * 415 or 422 `INVALID_FORMAT`: not a supported type (415), or a supported type whose bytes are broken or
 * past a reading limit (422, {@link SiegelApiError.limit} names it). `supported` lists what the server signs.
 */
export class InvalidFormatError extends SiegelApiError {
  /** The formats the server signs, as it lists them (`image/png`, `text/markdown (.md, .markdown)`, …). */
  get supported(): string[] {
    const value = this.details.supported;
    return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  }
}

/** 422 `AUTHOR_REQUIRED`: the file names no real author; write one in first (`embedAuthor`). */
export class AuthorRequiredError extends SiegelApiError {}

/** 422 `EVENT_REFUSED`: the bunker refused to sign this one event (too large: a shorter title, say). */
export class EventRefusedError extends SiegelApiError {}

/** 429 `RATE_LIMITED`: more uploads from this address than the server allows per minute. Retried. */
export class RateLimitedError extends SiegelApiError {}

/** 500 `INTERNAL_ERROR`: a bug in the server (it logged it). */
export class InternalServerError extends SiegelApiError {}

/** 502 or 503 `BUNKER_UNAVAILABLE`: the server's signer cannot sign now (`details.bunker_error` says why). */
export class BunkerUnavailableError extends SiegelApiError {}

/** 503 `SERVER_BUSY`: no room for the upload in time. Retried after `Retry-After`. */
export class ServerBusyError extends SiegelApiError {}

/** 503 `STORE_UNAVAILABLE`: the server's database or file storage cannot be reached now. Retried after `Retry-After`. */
export class StoreUnavailableError extends SiegelApiError {}

/** The server could not be reached, or the connection broke before an answer (`cause` is the runtime's). */
export class NetworkError extends SiegelApiError {}

/** The server answered something that is not a Siegel answer (a proxy's HTML page, say). */
export class UnexpectedResponseError extends SiegelApiError {}

/** `embedAuthor` cannot write into these bytes (unsupported, damaged, encrypted) or was given a bad author. */
export class EmbedError extends SiegelApiError {}

/**
 * The old name of {@link SiegelApiError}, the same class: `instanceof SiegelError` still works.
 *
 * @deprecated Use `SiegelApiError` — renamed so that it cannot be taken for `@siegel/core`'s `SiegelError`
 * (a different class, with the CLI's codes). This alias will be removed in a major version.
 */
export const SiegelError = SiegelApiError;
/** @deprecated Use {@link SiegelApiError}. */
export type SiegelError = SiegelApiError;
/** @deprecated Use {@link SiegelApiErrorInit}. */
export type SiegelErrorInit = SiegelApiErrorInit;

/** The subclass for each server code. */
export const ERROR_CLASSES: Readonly<Record<ServerErrorCode, typeof SiegelApiError>> = {
  NO_FILE: NoFileError,
  BAD_REQUEST: BadRequestError,
  BAD_HEADER: BadHeaderError,
  INVALID_HASH: InvalidHashError,
  UNAUTHORIZED: UnauthorizedError,
  NOT_FOUND: NotFoundError,
  FILE_ALTERED: FileAlteredError,
  RECORD_ALTERED: RecordAlteredError,
  ALREADY_SIGNED: SiegelApiError,
  FILE_TOO_LARGE: FileTooLargeError,
  INVALID_FORMAT: InvalidFormatError,
  AUTHOR_REQUIRED: AuthorRequiredError,
  EVENT_REFUSED: EventRefusedError,
  RATE_LIMITED: RateLimitedError,
  INTERNAL_ERROR: InternalServerError,
  BUNKER_UNAVAILABLE: BunkerUnavailableError,
  SERVER_BUSY: ServerBusyError,
  STORE_UNAVAILABLE: StoreUnavailableError,
  UPLOAD_TOKEN_EXPIRED: UploadTokenExpiredError,
  UPLOAD_TOKEN_USED_UP: UploadTokenUsedUpError,
  UPLOAD_TOKEN_ORIGIN: UploadTokenOriginError,
  INVALID_TOKEN_REQUEST: InvalidTokenRequestError,
  ORIGIN_NOT_ALLOWED: OriginNotAllowedError,
  INVALID_URL: SiegelApiError,
  PAGE_UNAVAILABLE: SiegelApiError,
  HOST_RATE_LIMITED: SiegelApiError,
  INVALID_QUERY: SiegelApiError,
};

/**
 * The error for a server's error answer: the subclass of its `error` code, carrying its status, message,
 * extra fields and `Retry-After`. An answer without a known code is an {@link UnexpectedResponseError}.
 */
export function errorFromAnswer(
  status: number,
  body: unknown,
  retryAfter: number | undefined,
): SiegelApiError {
  if (body !== null && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
    const { success: _success, error: code, message, ...details } = body as Record<string, unknown>;
    const ErrorClass = ERROR_CLASSES[code as ServerErrorCode] ?? SiegelApiError;
    return new ErrorClass({
      code: code as string,
      status,
      message: typeof message === 'string' ? message : `The server answered ${status} \`${code}\``,
      details,
      retryAfter: retryAfter ?? numberOrUndefined(details.retry_after),
    });
  }
  return new UnexpectedResponseError({
    code: 'UNEXPECTED_RESPONSE',
    status,
    message: `The server answered HTTP ${status} without a Siegel error code; is \`baseUrl\` a Siegel server?`,
    details: { body },
    retryAfter,
  });
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
