// The one error every reader and writer of this package throws: what went wrong in words a person can act on
// (`message`), and as data a caller can branch on (`kind`, `format`, `limit`). No HTTP status: the server
// maps kinds to its answers at its edge (server/src/http/error-answers.ts), the client to its own codes.

/**
 * Why bytes could not be read or written: `unsupported` (not a format this package knows, or a variant of
 * one it does not read), `damaged` (broken or truncated), `encrypted` (a PDF encryption it cannot open),
 * `too_complex` (structure this package declines to follow, short of a named bound) and `limit` (past one of
 * {@link FORMAT_LIMITS}, named in `limit`).
 */
export type FormatErrorKind = 'unsupported' | 'damaged' | 'encrypted' | 'too_complex' | 'limit';

/**
 * An error reading or writing a file's metadata.
 *
 * @example
 * ```ts
 * try {
 *   readAuthor(bytes);
 * } catch (error) {
 *   if (error instanceof FormatError && error.kind === 'limit') console.log(`past ${error.limit}`);
 * }
 * ```
 */
export class FormatError extends Error {
  readonly kind: FormatErrorKind;
  /** The format being read (`png`, `pdf`, `markdown`, …; `unknown` before it is told). */
  readonly format: string;
  /** With kind `limit`: the name of the bound (a key of `FORMAT_LIMITS`, or the caller's own). */
  readonly limit: string | undefined;

  constructor(kind: FormatErrorKind, format: string, message: string, limit?: string) {
    super(message);
    this.name = 'FormatError';
    this.kind = kind;
    this.format = format;
    this.limit = limit;
  }
}

/**
 * A {@link FormatError} of kind `damaged` (`unsupported` when `unsupported` is set), the common case.
 *
 * @example
 * ```ts
 * throw damaged('pdf', 'This PDF is damaged: no trailer found');
 * ```
 */
export function damaged(format: string, message: string): FormatError {
  return new FormatError('damaged', format, message);
}

/**
 * A {@link FormatError} of kind `unsupported`.
 *
 * @example
 * ```ts
 * throw unsupported('unknown', '`a.html` is not a supported format');
 * ```
 */
export function unsupported(format: string, message: string): FormatError {
  return new FormatError('unsupported', format, message);
}

/**
 * What the caller of a writer passed is wrong (not the file): `INVALID_AUTHOR` (no author, an empty name, a
 * control character, a name a format cannot hold) or `INVALID_OPTIONS` (not bytes at all).
 *
 * @example
 * ```ts
 * throw new EmbedInputError('INVALID_AUTHOR', 'The author is empty');
 * ```
 */
export class EmbedInputError extends Error {
  readonly code: 'INVALID_AUTHOR' | 'INVALID_OPTIONS';

  constructor(code: 'INVALID_AUTHOR' | 'INVALID_OPTIONS', message: string) {
    super(message);
    this.name = 'EmbedInputError';
    this.code = code;
  }
}
