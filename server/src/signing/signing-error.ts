// What signing a file refuses with, in the domain's words: no HTTP status here (`http/error-answers.ts` gives
// each kind its answer).

/** Why a file was not signed (or, for `author_required`, could not be). */
export type SigningErrorKind =
  /** The file names no real author, or names one by a key only. */
  | 'author_required'
  /** These bytes were signed before: `details` has `hash`, `existing_event` and `urls`. */
  | 'already_signed'
  /** The bunker refused this one event (it signs others): this upload's fault, no reason to retry. */
  | 'event_refused'
  /** The bunker could not sign (unreachable, token, key): a retry later may do. */
  | 'bunker_unavailable'
  /** The bunker returned an event that does not match what was asked. */
  | 'bunker_mismatch';

/** A file not signed, and why; `details` are the fields an answer carries beside the message. */
export class SigningError extends Error {
  constructor(
    readonly kind: SigningErrorKind,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SigningError';
  }
}
