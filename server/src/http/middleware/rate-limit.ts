import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per client per window. */
  limit: number;
  /** Window length in milliseconds (default 60 000). */
  windowMs?: number;
  /** Who the client is (default: the socket's remote address). */
  clientKey?: (c: Context) => string;
  /** What is counted, for the message: `Too many {what} from this client` (default `uploads`). */
  what?: string;
}

/** The client's address as `@hono/node-server` exposes it (`unknown` in `app.request()` tests). */
export function remoteAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * Fixed windows per key: at most `limit` counts per key in a window of `windowMs`. The one counter of the
 * service's rate limits (per client here, per target host for verify-by-URL). Kept in this process: several
 * instances each count their own.
 *
 * @throws {Error} when `limit` is not a positive integer.
 */
export class FixedWindows {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  constructor(limit: number, windowMs = 60_000) {
    if (!Number.isInteger(limit) || limit <= 0)
      throw new Error(`rateLimit: limit must be a positive integer, got \`${limit}\``);
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts one for `key`: `undefined` while within the limit, else the milliseconds until its window ends. */
  take(key: string, now = Date.now()): number | undefined {
    if (this.#windows.size > 10_000) {
      for (const [old, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(old);
    }
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.#windowMs };
      this.#windows.set(key, window);
    }
    window.count++;
    return window.count > this.#limit ? window.resetAt - now : undefined;
  }
}

/**
 * A fixed-window rate limit per client: over `limit` requests in a window → 429 `RATE_LIMITED` with
 * `Retry-After`.
 *
 * @throws {Error} when `limit` is not a positive integer.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const { windowMs = 60_000, clientKey = remoteAddress, what = 'uploads' } = options;
  const windows = new FixedWindows(options.limit, windowMs);
  return async function rateLimitMiddleware(c, next) {
    const wait = windows.take(clientKey(c));
    if (wait !== undefined) {
      const retryAfter = Math.ceil(wait / 1000);
      c.header('Retry-After', String(retryAfter));
      throw new ApiError(429, 'RATE_LIMITED', `Too many ${what} from this client; retry in ${retryAfter} s`);
    }
    await next();
  };
}
