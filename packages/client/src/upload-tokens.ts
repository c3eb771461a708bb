import { invalidOptions, readOptions } from './client.js';
import { errorFromAnswer } from './errors.js';
import { requestWithRetries } from './http.js';

/** Options of {@link mintUploadToken}. */
export interface MintUploadTokenOptions {
  /** The Siegel server, e.g. `https://siegel.example`. */
  baseUrl: string | URL;
  /** A sign token (one of the server's `SIGN_API_TOKENS`): the backend's secret. An upload token cannot mint. */
  token: string;
  /** The origin of the page that will use the token, e.g. `https://app.example`; one of `SIGN_CORS_ORIGINS`. */
  origin: string;
  /** Uploads (sign or inspect) the token admits, 1 to 100 (default 1). */
  uses?: number;
  /** Seconds the token works, 1 to 1800 (default 300). */
  ttlSeconds?: number;
  signal?: AbortSignal;
  /** The fetch to use (default the runtime's). */
  fetch?: typeof fetch;
}

/** A minted upload token, as the server answers it. */
export interface UploadToken {
  /** The token: hand it to the page, which passes it as `token` to `createClient`. Shown once. */
  token: string;
  origin: string;
  /** When it stops working, ISO 8601 UTC. */
  expires_at: string;
  uses: number;
}

/**
 * Mint a short-lived upload token (`POST /api/upload-tokens`) for a browser page on `origin`: a tool's
 * backend calls this with its sign token and hands the result to the page, so the sign token never reaches
 * a browser. The page signs with `createClient({ baseUrl, token: uploadToken.token })`; each `sign` or
 * `inspect` the server admits takes one use.
 *
 * @example
 * ```ts
 * const { token } = await mintUploadToken({
 *   baseUrl: 'https://siegel.example',
 *   token: process.env.SIGN_TOKEN,
 *   origin: 'https://app.example',
 *   uses: 3,
 * });
 * ```
 * @throws {InvalidTokenRequestError} a malformed origin, `uses` or `ttlSeconds`.
 * @throws {OriginNotAllowedError} the origin is not in the server's `SIGN_CORS_ORIGINS`.
 * @throws {UnauthorizedError} `token` is not a sign token.
 */
export async function mintUploadToken(options: MintUploadTokenOptions): Promise<UploadToken> {
  if (options === null || typeof options !== 'object') {
    throw invalidOptions('mintUploadToken needs `{ baseUrl, token, origin }`');
  }
  const { baseUrl, token, origin, uses, ttlSeconds, signal, fetch, ...unknown } = options;
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined) {
    throw invalidOptions(`Unknown option \`${extra}\` of mintUploadToken`);
  }
  if (typeof token !== 'string' || token === '') {
    throw invalidOptions('mintUploadToken needs `token`, a sign token');
  }
  const http = readOptions({ baseUrl, token, ...(fetch ? { fetch } : {}) });
  const body = JSON.stringify({
    origin,
    ...(uses !== undefined && { uses }),
    ...(ttlSeconds !== undefined && { ttl_seconds: ttlSeconds }),
  });
  const answer = await requestWithRetries(
    http,
    '/api/upload-tokens',
    (url) =>
      http.fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body,
        ...(signal ? { signal } : {}),
      }),
    signal,
  );
  if (answer.status === 201) {
    const { token: minted, origin: bound, expires_at, uses: granted } = answer.body as UploadToken;
    return { token: minted, origin: bound, expires_at, uses: granted };
  }
  throw errorFromAnswer(answer.status, answer.body, answer.retryAfter);
}
