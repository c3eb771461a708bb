import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** The CSP of the service's own pages: scripts and styles from the service only, nothing inline. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The CSP of served uploads: nothing runs, and the browser sandboxes the document. */
export const UPLOAD_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/** A CSP for a page whose only style is `style` (inline, allowed by its hash) and that runs no script. */
export function inlineStyleCsp(style: string): string {
  const digest = createHash('sha256').update(style).digest('base64');
  return `default-src 'none'; style-src 'sha256-${digest}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/**
 * The security headers of every response, as a plain object: {@link PAGE_CSP}, `nosniff`, no framing, no
 * referrer, a closed permissions policy, and HSTS when served over HTTPS.
 */
export function createSecurityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/**
 * Middleware putting {@link createSecurityHeaders} on every response; a route may replace the CSP with its own.
 */
export function securityHeaders(options: { https: boolean }): MiddlewareHandler {
  const headers = Object.entries(createSecurityHeaders(options));
  // Set before the handler runs, so every response built with `c.body()`/`c.json()`/`c.html()` carries them
  // and a route can still replace the CSP; a handler returning its own `Response` gets them added after.
  return async function securityHeadersMiddleware(c, next) {
    for (const [name, value] of headers) c.header(name, value);
    await next();
    if (!c.res.headers.has('X-Content-Type-Options')) {
      for (const [name, value] of headers) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  };
}
