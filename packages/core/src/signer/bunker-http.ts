// One HTTP request to a Siegel bunker (used by http-bunker-signer.ts): bearer token, JSON body, a timeout
// per attempt, and bounded retries with jittered backoff for what may pass (network errors, timeouts, 5xx,
// 429). Separate from the signer, which decides what to ask and what an answer means: this file only
// carries a request there and an answer back, and names the address when none came.
import { SiegelError } from '../errors.js';
import { backoffDelay } from '../net/backoff.js';
import { describeValueSource, type ValueSource } from '../options/env.js';

/** A bunker's answer: its status and its body, parsed as JSON when it is JSON (else the text). */
export interface BunkerResponse {
  status: number;
  body: unknown;
}

/** Where and how to reach the bunker; the signer fills it from its options. */
export interface BunkerConnection {
  /** Base address, without a trailing slash. */
  url: string;
  /** Where `url` came from, named when the bunker cannot be reached. */
  urlSource: ValueSource;
  apiToken: string;
  fetch: typeof fetch;
  /** Timeout of one attempt, in ms. */
  timeoutMs: number;
  /** Extra attempts for transient failures. */
  retries: number;
  /** First backoff delay in ms, doubled per attempt. */
  retryDelayMs: number;
}

/**
 * One HTTP request with timeout and bounded retry (network errors, timeouts, 5xx, 429). Resolves with the
 * last answer once the retries are spent; rejects with `bunker_unreachable` when none came.
 *
 * @example
 * ```ts
 * const { status, body } = await requestBunker(connection, 'GET', '/api/keys');
 * ```
 * @throws {SiegelError} `bunker_unreachable` naming the address and where it came from.
 */
export async function requestBunker(
  connection: BunkerConnection,
  method: string,
  path: string,
  body?: unknown,
): Promise<BunkerResponse> {
  let attempt = 0;
  for (;;) {
    // The last attempt's outcome: an answer (a 5xx or 429 one, when retried) or a network error.
    let outcome: BunkerResponse | SiegelError;
    try {
      const response = await connection.fetch(`${connection.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${connection.apiToken}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(connection.timeoutMs),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {}
      outcome = { status: response.status, body: parsed };
      if (response.status < 500 && response.status !== 429) return outcome;
    } catch (error) {
      outcome = networkError(connection, error);
    }
    if (attempt >= connection.retries) {
      if (outcome instanceof SiegelError) throw outcome;
      return outcome;
    }
    const delay = backoffDelay(attempt, { first: connection.retryDelayMs, max: Infinity, jitter: 0.25 });
    attempt++;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** `bunker_unreachable`: the first line names the address, the second where that address came from. */
function networkError(connection: BunkerConnection, error: unknown): SiegelError {
  const source = describeValueSource('BUNKER_URL', connection.urlSource);
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new SiegelError(
      'bunker_unreachable',
      `Bunker at BUNKER_URL \`${connection.url}\` did not answer within ${connection.timeoutMs} ms.\n${source}`,
      { cause: error },
    );
  }
  const code =
    ((error as { cause?: { code?: string } })?.cause?.code ?? (error as Error)?.message) || 'network error';
  return new SiegelError(
    'bunker_unreachable',
    `Bunker not reachable at BUNKER_URL \`${connection.url}\` (${code}). Is it running?\n${source}`,
    { cause: error },
  );
}
