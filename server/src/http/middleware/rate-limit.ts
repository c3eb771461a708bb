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
}

/** The client's address as `@hono/node-server` exposes it (`unknown` in `app.request()` tests). */
export function remoteAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}

/**
 * A fixed-window rate limit per client: over `limit` requests in a window → 429 `RATE_LIMITED` with
 * `Retry-After`.
 *
 * @throws {Error} when `limit` is not a positive integer.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const { limit, windowMs = 60_000, clientKey = remoteAddress } = options;
  if (!Number.isInteger(limit) || limit <= 0)
    throw new Error(`rateLimit: limit must be a positive integer, got \`${limit}\``);
  const windows = new Map<string, { count: number; resetAt: number }>();
  return async function rateLimitMiddleware(c, next) {
    const now = Date.now();
    if (windows.size > 10_000) {
      for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    }
    const key = clientKey(c);
    let window = windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      windows.set(key, window);
    }
    window.count++;
    if (window.count > limit) {
      const retryAfter = Math.ceil((window.resetAt - now) / 1000);
      c.header('Retry-After', String(retryAfter));
      throw new ApiError(429, 'RATE_LIMITED', `Too many uploads from this client; retry in ${retryAfter} s`);
    }
    await next();
  };
}
