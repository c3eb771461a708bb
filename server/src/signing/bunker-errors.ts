// The bunker's errors as signing errors: what signing one event through the bunker may fail with, and which
// `SigningError` each failure becomes (a refusal of this one event, or the bunker unavailable).
import { SigningError } from './signing-error.js';

const SIGNER_ERROR_CODES = new Set([
  'token_missing',
  'token_rejected',
  'key_not_found',
  'key_locked',
  'bunker_unreachable',
  'bunker_error',
]);

/**
 * Run the bunker call; its errors become `bunker_unavailable` carrying the signer's (German) message — except a
 * refusal of this one event (`event_refused`: the bunker signs others, not this one, e.g. 413 for its size),
 * which is this upload's fault and no reason to retry: `event_refused`.
 */
export async function signWithBunker<T>(sign: () => Promise<T>): Promise<T> {
  try {
    return await sign();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof Error && code === 'event_refused') {
      throw new SigningError('event_refused', error.message, { bunker_error: code });
    }
    if (error instanceof Error && typeof code === 'string' && SIGNER_ERROR_CODES.has(code)) {
      // An unreachable bunker's second line tells where BUNKER_URL was set — on this server, maybe the path
      // of its `.env`: for the operator (main.ts prints it at start), not for the uploader.
      const message = code === 'bunker_unreachable' ? (error.message.split('\n')[0] ?? '') : error.message;
      throw new SigningError('bunker_unavailable', message, { bunker_error: code });
    }
    throw new SigningError('bunker_unavailable', 'The signing bunker could not sign the event', {
      bunker_error: 'bunker_error',
    });
  }
}
