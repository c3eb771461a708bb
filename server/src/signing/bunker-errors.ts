// The bunker's errors as the API's answers: what signing one event through the bunker may fail with, and
// which answer each failure becomes (a refusal of this one event, or the bunker unavailable).
import { ApiError } from '../api-error.js';

const SIGNER_ERROR_CODES = new Set([
  'token_missing',
  'token_rejected',
  'key_not_found',
  'key_locked',
  'bunker_unreachable',
  'bunker_error',
]);

/**
 * Run the bunker call; its errors become 503 answers carrying the signer's (German) message — except a
 * refusal of this one event (`event_refused`: the bunker signs others, not this one, e.g. 413 for its size),
 * which is this upload's fault and no reason to retry: 422 `EVENT_REFUSED`.
 */
export async function signWithBunker<T>(sign: () => Promise<T>): Promise<T> {
  try {
    return await sign();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof Error && code === 'event_refused') {
      throw new ApiError(422, 'EVENT_REFUSED', error.message, { bunker_error: code });
    }
    if (error instanceof Error && typeof code === 'string' && SIGNER_ERROR_CODES.has(code)) {
      // An unreachable bunker's second line tells where BUNKER_URL was set — on this server, maybe the path
      // of its `.env`: for the operator (main.ts prints it at start), not for the uploader.
      const message = code === 'bunker_unreachable' ? (error.message.split('\n')[0] ?? '') : error.message;
      throw new ApiError(503, 'BUNKER_UNAVAILABLE', message, { bunker_error: code });
    }
    throw new ApiError(503, 'BUNKER_UNAVAILABLE', 'The signing bunker could not sign the event', {
      bunker_error: 'bunker_error',
    });
  }
}
