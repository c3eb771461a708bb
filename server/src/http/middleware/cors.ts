import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** The response headers a page may read: the wait of a 429/503, and Blossom's error reason. */
const EXPOSED_HEADERS = ['Retry-After', 'X-Reason'];

/**
 * CORS for the routes browsers may call (sign, inspect, upload tokens), through Hono's `cors`: only for
 * requests whose `Origin` is one of `origins` (`SIGN_CORS_ORIGINS`), preflights included; `Authorization`
 * and `Content-Type` allowed, {@link EXPOSED_HEADERS} exposed, no credentials (tokens travel in
 * `Authorization`, never in cookies). A request from any other origin gets no CORS header at all — Hono's
 * middleware would still answer its preflight and expose headers, so it is not run for it — and with no
 * origins listed the middleware is left out (`undefined`).
 */
export function signCors(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const honoCors = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['POST', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return async function signCorsMiddleware(c, next) {
    if (allowed.has(c.req.header('Origin') ?? '')) return honoCors(c, next);
    // The answer differs by Origin: caches must keep them apart.
    c.header('Vary', 'Origin', { append: true });
    await next();
  };
}
