/**
 * Stable error codes of `@siegel/core`, listed in docs/errors.md with what the user does about each. The
 * first four carry a German first line; the rest carry a clear English message. `event_refused`: the
 * signer refused what it was asked to sign (an event too large for the bunker, say) while it signs other
 * events — a failure of those events, not of the signer; `signSite` then fails those pages only.
 * `nothing_signed`: a signing run left no page signed (no HTML page, or none with the signed element).
 */
export type SiegelErrorCode =
  | 'token_missing'
  | 'token_rejected'
  | 'key_not_found'
  | 'key_locked'
  | 'bunker_unreachable'
  | 'bunker_error'
  | 'invalid_options'
  | 'io_error'
  | 'verification_failed'
  | 'event_refused'
  | 'nothing_signed';

/**
 * The exact German first line of the user-facing signer errors (stable; tests pin them): the seed's
 * three (token missing, key not found, key locked), and `token_rejected` for a token that is set but
 * refused by the bunker (HTTP 401). docs/errors.md lists them.
 */
export const GERMAN_MESSAGES = {
  token_missing: 'BUNKER_API_TOKEN nicht gesetzt',
  token_rejected: 'BUNKER_API_TOKEN ungültig',
  key_not_found: 'Key nicht gefunden',
  key_locked: 'Key ist gesperrt',
} as const satisfies Partial<Record<SiegelErrorCode, string>>;

/**
 * The one error type of `@siegel/core`: a stable `code` to branch on, a message for people, and the
 * underlying `cause` when there is one.
 *
 * @example
 * ```ts
 * try { await signSite('dist') } catch (error) {
 *   if (error instanceof SiegelError && error.code === 'key_locked') console.error(error.message);
 * }
 * ```
 */
export class SiegelError extends Error {
  /** Stable machine-readable code. */
  readonly code: SiegelErrorCode;

  constructor(code: SiegelErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SiegelError';
    this.code = code;
  }
}

/**
 * Build one of the German signer errors: the exact German line first, then an English explanation.
 *
 * @example
 * ```ts
 * throw createGermanError('key_locked', 'The key `default` is locked; unlock it in the bunker.');
 * ```
 */
export function createGermanError(
  code: keyof typeof GERMAN_MESSAGES,
  english: string,
  options?: { cause?: unknown },
): SiegelError {
  return new SiegelError(code, `${GERMAN_MESSAGES[code]}\n${english}`, options);
}

/** True when `error` is a {@link SiegelError} (optionally with the given code). */
export function isSiegelError(error: unknown, code?: SiegelErrorCode): error is SiegelError {
  return error instanceof SiegelError && (code === undefined || error.code === code);
}
