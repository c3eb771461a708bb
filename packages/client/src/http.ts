import { NetworkError, UnexpectedResponseError } from './errors.js';
import { isRetryableStatus, parseRetryAfter, type RetryOptions, retryDelay, sleep } from './retry.js';

/** What every call of one client shares. */
export interface HttpOptions {
  /** Without a trailing slash. */
  baseUrl: string;
  token: string | undefined;
  fetch: typeof fetch;
  retry: Required<RetryOptions>;
}

/** A server's answer, read: its status, its JSON body, and its `Retry-After` in seconds. */
export interface Answer {
  status: number;
  body: unknown;
  retryAfter: number | undefined;
}

/** One attempt: send the request to `url` and resolve with the response (its body not yet read). */
export type Attempt = (url: string) => Promise<Response>;

/**
 * Send a request (`attempt`, called again for each retry) and read its JSON answer. A 429 or 503 is retried
 * after its `Retry-After` (seconds or an HTTP date; the body's `retry_after` else; `retryDelayMs` doubled
 * else) up to `retries` times, unless the wait is longer than `maxRetryDelayMs`; the last answer is returned
 * as it is. The signal stops everything at once — a request, a body being read, a wait — and the promise
 * rejects with its reason.
 *
 * @throws {NetworkError} the request failed without an answer.
 * @throws {UnexpectedResponseError} the answer is not JSON.
 */
export async function requestWithRetries(
  http: HttpOptions,
  path: string,
  attempt: Attempt,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  const url = `${http.baseUrl}${path}`;
  for (let retry = 0; ; retry++) {
    signal?.throwIfAborted();
    let response: Response;
    try {
      response = await attempt(url);
    } catch (error) {
      signal?.throwIfAborted();
      throw new NetworkError({
        code: 'NETWORK_ERROR',
        message: `Cannot reach the Siegel server at \`${url}\`: ${describeError(error)}`,
        cause: error,
      });
    }
    const answer = await readAnswer(response, url, signal);
    if (isRetryableStatus(answer.status) && retry < http.retry.retries) {
      const delay = retryDelay(retry, answer.retryAfter ?? bodyRetryAfter(answer.body), http.retry);
      if (delay !== undefined) {
        await sleep(delay, signal);
        continue;
      }
    }
    return answer;
  }
}

/** A GET of `path` with retries. */
export function getJson(http: HttpOptions, path: string, signal: AbortSignal | undefined): Promise<Answer> {
  return requestWithRetries(
    http,
    path,
    (url) => http.fetch(url, { headers: { Accept: 'application/json' }, ...(signal ? { signal } : {}) }),
    signal,
  );
}

async function readAnswer(response: Response, url: string, signal: AbortSignal | undefined): Promise<Answer> {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    signal?.throwIfAborted();
    throw new NetworkError({
      code: 'NETWORK_ERROR',
      message: `The answer of \`${url}\` broke off: ${describeError(error)}`,
      status: response.status,
      cause: error,
    });
  }
  try {
    return { status: response.status, body: JSON.parse(text), retryAfter };
  } catch {
    throw new UnexpectedResponseError({
      code: 'UNEXPECTED_RESPONSE',
      status: response.status,
      message: `\`${url}\` answered HTTP ${response.status} with a body that is not JSON (${JSON.stringify(text.slice(0, 80))}); is \`baseUrl\` a Siegel server?`,
      details: { body: text.slice(0, 1000) },
      retryAfter,
    });
  }
}

function bodyRetryAfter(body: unknown): number | undefined {
  const value = (body as { retry_after?: unknown } | null)?.retry_after;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : '';
  return `${error.message}${detail}`;
}
