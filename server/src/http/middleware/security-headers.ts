import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;

/** The directives of {@link PAGE_CSP}, as Hono's `secureHeaders` takes them. */
const PAGE_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
} satisfies SecureHeadersOptions['contentSecurityPolicy'];

/** The features no page of the service uses, closed (`camera=()` …), as Hono's `secureHeaders` takes them. */
const CLOSED_FEATURES = {
  camera: [],
  microphone: [],
  geolocation: [],
  payment: [],
} satisfies SecureHeadersOptions['permissionsPolicy'];

const HSTS = 'max-age=31536000; includeSubDomains';

/** `defaultSrc` → `default-src`, as Hono writes directive names. */
function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The CSP of the service's own pages: scripts and styles from the service only, nothing inline. */
export const PAGE_CSP = Object.entries(PAGE_CSP_DIRECTIVES)
  .map(([name, sources]) => `${kebabCase(name)} ${sources.join(' ')}`)
  .join('; ');

/** The CSP of served uploads: nothing runs, and the browser sandboxes the document. */
export const UPLOAD_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/** A CSP for a page whose only style is `style` (inline, allowed by its hash) and that runs no script. */
export function inlineStyleCsp(style: string): string {
  const digest = createHash('sha256').update(style).digest('base64');
  return `default-src 'none'; style-src 'sha256-${digest}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/**
 * The security headers of every response, as a plain object: {@link PAGE_CSP}, `nosniff`, no framing, no
 * referrer, a closed permissions policy, and HSTS when served over HTTPS. The same headers as
 * {@link securityHeaders} sets, for what answers without that middleware: the verify API (its hot path sets
 * them from this table) and the error handler.
 */
export function createSecurityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': Object.keys(CLOSED_FEATURES)
      .map((feature) => `${kebabCase(feature)}=()`)
      .join(', '),
    ...(options.https ? { 'Strict-Transport-Security': HSTS } : {}),
  };
}

/**
 * Hono's `secureHeaders`, set to put {@link createSecurityHeaders} on every response. A header the route set
 * itself is kept (`overwrite: false`), so a route may replace the CSP with its own (served uploads, event
 * pages). Hono's other default headers are off, so every response carries the same headers as the verify
 * API's and the error handler's: `Cross-Origin-Resource-Policy: same-origin` would stop other sites from
 * embedding the files this service serves for them, and the others (`X-XSS-Protection`,
 * `X-Download-Options`, `X-Permitted-Cross-Domain-Policies`, `X-DNS-Prefetch-Control`,
 * `Origin-Agent-Cluster`) address old browsers, plug-ins or features these pages do not use.
 */
export function securityHeaders(options: { https: boolean }): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: PAGE_CSP_DIRECTIVES,
    xContentTypeOptions: 'nosniff',
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    crossOriginOpenerPolicy: 'same-origin',
    permissionsPolicy: CLOSED_FEATURES,
    strictTransportSecurity: options.https ? HSTS : false,
    crossOriginResourcePolicy: false,
    crossOriginEmbedderPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    overwrite: false,
  });
}
