/** How the client retries answers that say "later" (429, 503). */
export interface RetryOptions {
  /** Retries after the first attempt, for 429 and 503 answers (default 2: at most three attempts). */
  retries?: number;
  /**
   * The longest wait before a retry, in ms (default 60 000). A `Retry-After` longer than this is not waited
   * for: the error is thrown at once, its `retryAfter` saying how long the server asked for.
   */
  maxRetryDelayMs?: number;
  /** The wait before the first retry when the answer has no `Retry-After`, in ms, doubled each time (default 1 000). */
  retryDelayMs?: number;
}

/** The defaults of {@link RetryOptions}. */
export const RETRY_DEFAULTS: Readonly<Required<RetryOptions>> = {
  retries: 2,
  maxRetryDelayMs: 60_000,
  retryDelayMs: 1_000,
};

/** The statuses that are retried: 429 (rate limit) and 503 (server busy, or its signer is unavailable). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * A `Retry-After` header in seconds: delay-seconds (`120`) or an HTTP date (`Wed, 21 Oct 2026 07:28:00
 * GMT`, counted from `now`); `undefined` when absent or malformed. A date in the past is 0.
 *
 * @example
 * ```ts
 * parseRetryAfter('3'); // 3
 * parseRetryAfter(new Date(Date.now() + 5000).toUTCString()); // about 5
 * ```
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  // HTTP dates (IMF-fixdate, RFC 850, asctime) all begin with the day's name; `Date.parse` takes far more.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * How long to wait before retry number `retry` (0 for the first), in ms: what the server asked for, else
 * `retryDelayMs` doubled each time; `undefined` when that is longer than `maxRetryDelayMs`. The doubling is
 * the client's own copy of `@siegel/core`'s `backoffDelay` on purpose: `@siegel/client` has no dependency
 * (it runs in browsers and Workers), and core is a Node package.
 */
export function retryDelay(
  retry: number,
  retryAfterSeconds: number | undefined,
  options: Required<RetryOptions>,
): number | undefined {
  const delay =
    retryAfterSeconds === undefined ? options.retryDelayMs * 2 ** retry : Math.ceil(retryAfterSeconds * 1000);
  return delay > options.maxRetryDelayMs ? undefined : delay;
}

/**
 * Resolve after `ms` — never sooner by the clock: a timer that fires early (JavaScript runtimes count from a
 * cached loop time) waits out the rest — or reject with the signal's reason (an `AbortError` `DOMException`
 * unless the caller gave another) as soon as it aborts; the timer is cleared then, so an aborted wait holds
 * nothing.
 */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const until = Date.now() + ms;
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const wake = () => {
      const left = until - Date.now();
      if (left > 0) {
        timer = setTimeout(wake, left);
        return;
      }
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    timer = setTimeout(wake, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
