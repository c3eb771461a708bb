// What a Siegel bunker's refusals mean to a signing run (used by http-bunker-signer.ts): an HTTP status and
// the bunker's error body turned into Siegel's errors — the German first lines for a rejected token, a
// missing or a locked key, and `bunker_error` naming the request for the rest. Separate from the signer,
// which decides when a refusal is the event's (`event_refused`) rather than the bunker's; the bunker's own
// words are quoted here, on one line and made safe for a terminal, since they come from another process.
import { createGermanError, SiegelError } from '../errors.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import type { BunkerResponse } from './bunker-http.js';

/** The bunker as messages name it: its address and the key asked for. */
export interface BunkerName {
  readonly url: string;
  readonly keyName: string;
}

/**
 * The error for an answer other than success to `what` (e.g. `POST /api/sign`): `token_rejected`,
 * `key_not_found`, `key_locked` (German first line), else `bunker_error` with the status and the bunker's
 * code and message.
 */
export function bunkerStatusError(bunker: BunkerName, response: BunkerResponse, what: string): SiegelError {
  const code = bunkerErrorCode(response.body);
  const detail = bunkerErrorMessage(response.body);
  if (response.status === 401) {
    return createGermanError(
      'token_rejected',
      `The bunker at BUNKER_URL \`${bunker.url}\` rejected BUNKER_API_TOKEN (HTTP 401): the token is set but wrong; check it in .env.`,
    );
  }
  if (code === 'key_not_found' || (response.status === 404 && what.endsWith('/api/sign')))
    return keyNotFoundError(bunker);
  if (response.status === 423 || code === 'key_locked') return keyLockedError(bunker);
  if (what.endsWith('/api/sign') && /locked|gesperrt/i.test(detail ?? '')) return keyLockedError(bunker);
  if (response.status >= 500) {
    return new SiegelError(
      'bunker_error',
      `Bunker at BUNKER_URL \`${bunker.url}\` failed on ${what}: HTTP ${response.status}${detail ? ` ${detail}` : ''}`,
    );
  }
  return new SiegelError(
    'bunker_error',
    `Bunker at BUNKER_URL \`${bunker.url}\` refused ${what}: HTTP ${response.status}${code ? ` \`${code}\`` : ''}${detail ? ` ${detail}` : ''}`,
  );
}

/** `key_not_found`: the bunker has no key of that name. */
export function keyNotFoundError(bunker: BunkerName): SiegelError {
  return createGermanError(
    'key_not_found',
    `No key named \`${bunker.keyName}\` (BUNKER_KEY_NAME) in the bunker at \`${bunker.url}\`.`,
  );
}

/** `key_locked`: the key exists but must be unlocked in the bunker's admin page first. */
export function keyLockedError(bunker: BunkerName): SiegelError {
  return createGermanError(
    'key_locked',
    `The key \`${bunker.keyName}\` is locked: unlock it at \`${bunker.url}/admin\`.`,
  );
}

/** `bunker_error` for an answer of the wrong shape (`what`: the request, `detail`: what was wrong). */
export function badAnswerError(bunker: BunkerName, what: string, detail: string): SiegelError {
  return new SiegelError(
    'bunker_error',
    `Bunker at BUNKER_URL \`${bunker.url}\` gave a bad answer to ${what}: ${detail}`,
  );
}

/** The bunker's words are quoted on one line, with nothing a terminal would act on. */
const quoted = (text: string) => toTerminalSafe(text, { singleLine: true }).slice(0, 200);

/** The bunker's error code (`{ error: 'code' }` or `{ error: { code } }`), quoted; `undefined` if none. */
export function bunkerErrorCode(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string') return quoted(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? quoted(code) : undefined;
}

/** The bunker's error message (a text body, `{ error: { message } }` or `{ message }`), quoted. */
export function bunkerErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return quoted(body) || undefined;
  const record = body as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = record?.error?.message ?? record?.message;
  return typeof message === 'string' ? quoted(message) : undefined;
}
