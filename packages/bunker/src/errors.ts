import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The stable error codes of the bunker API, with the HTTP status each one is answered with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  key_not_found: 404,
  key_exists: 409,
  key_not_lockable: 409,
  payload_too_large: 413,
  batch_too_large: 413,
  event_too_large: 413,
  key_locked: 423,
  too_many_attempts: 429,
  internal_error: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

/** One of the stable error codes in {@link ERROR_STATUS}. */
export type BunkerErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one error type of `@siegel/bunker`: a stable `code`, a message for people, and the HTTP status it
 * maps to. The API answers it as `{ error: { code, message } }`.
 *
 * @example
 * ```ts
 * throw new BunkerError('key_locked', 'Key `default` is locked');
 * ```
 */
export class BunkerError extends Error {
  /** Stable, machine-readable code. */
  readonly code: BunkerErrorCode;
  /** HTTP status the API answers with. */
  readonly status: ContentfulStatusCode;
  /** Seconds after which a throttled request may be retried (`too_many_attempts` only). */
  readonly retryAfter?: number;

  constructor(code: BunkerErrorCode, message: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BunkerError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (options?.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }
}
