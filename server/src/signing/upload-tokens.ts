import { createHash, randomBytes } from 'node:crypto';
import { readCorsOrigins, serializedOrigin } from '../config/setting-values.js';
import type { UploadTokenStore } from '../storage/upload-token-store.js';

export { readCorsOrigins, serializedOrigin };

/** Why an upload token was refused, or a request for one: the HTTP edge (`http/error-answers.ts`) answers each. */
export type UploadTokenErrorKind =
  | 'invalid_request'
  | 'origin_not_allowed'
  | 'unknown'
  | 'wrong_origin'
  | 'expired'
  | 'used_up';

/** A refused upload token or token request, in the domain's words (no HTTP status: `http/` maps it). */
export class UploadTokenError extends Error {
  constructor(
    readonly kind: UploadTokenErrorKind,
    message: string,
    /** Fields the answer carries beside the message (`origin`, `expired_at`, `uses`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'UploadTokenError';
  }
}

/** Limits of minted upload tokens (`POST /api/upload-tokens`). */
export const UPLOAD_TOKEN_LIMITS = {
  /** Uses when none is asked for. */
  defaultUses: 1,
  /** The most uses one token may have. */
  maxUses: 100,
  /** Lifetime when none is asked for, in seconds (5 minutes). */
  defaultTtlSeconds: 300,
  /** The longest lifetime, in seconds (30 minutes). */
  maxTtlSeconds: 1800,
  /** How long an expired token still answers `UPLOAD_TOKEN_EXPIRED` before the sweep removes it, in ms. */
  sweepGraceMs: 60 * 60 * 1000,
} as const;

/** What every minted token starts with: tells it from a `SIGN_API_TOKENS` token without a lookup. */
export const UPLOAD_TOKEN_PREFIX = 'sut_';

/** SHA-256 of a token, lowercase hex: what the store keeps instead of the token. */
export function hashUploadToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether `token` has the shape of a minted upload token (`sut_` and 43 base64url characters). */
export function looksLikeUploadToken(token: string): boolean {
  return /^sut_[A-Za-z0-9_-]{43}$/.test(token);
}

/** What {@link mintUploadToken} answers: the token (shown once, never stored) and its terms. */
export interface MintedUploadToken {
  token: string;
  origin: string;
  /** ISO 8601, UTC. */
  expires_at: string;
  uses: number;
}

function invalidRequest(message: string): UploadTokenError {
  return new UploadTokenError('invalid_request', message);
}

function readWhole(body: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = body[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalidRequest(
      `\`${name}\` must be a whole number from 1 to ${max}, got \`${JSON.stringify(value)}\``,
    );
  }
  return value;
}

/**
 * Mint an upload token from a request body `{ origin, uses?, ttl_seconds? }`: 32 random bytes, kept in
 * `store` as their SHA-256 only. Expired tokens older than the sweep grace are removed first.
 *
 * @throws {UploadTokenError} `invalid_request` for a malformed body or value; `origin_not_allowed` for an
 *   origin not in `SIGN_CORS_ORIGINS`.
 */
export async function mintUploadToken(
  store: UploadTokenStore,
  body: unknown,
  corsOrigins: readonly string[],
  now = Date.now(),
): Promise<MintedUploadToken> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('The body must be a JSON object `{ "origin": "https://app.example" }`');
  }
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!['origin', 'uses', 'ttl_seconds'].includes(name)) {
      throw invalidRequest(
        `Unknown field \`${name.slice(0, 40)}\`; the fields are origin, uses, ttl_seconds`,
      );
    }
  }
  const origin = typeof fields.origin === 'string' ? serializedOrigin(fields.origin) : undefined;
  if (origin === undefined) {
    throw invalidRequest(
      `\`origin\` must be the page's origin, like \`https://app.example\` (scheme, host, port unless the default; no path, no trailing slash), got \`${JSON.stringify(fields.origin)?.slice(0, 200)}\``,
    );
  }
  if (!corsOrigins.includes(origin)) {
    throw new UploadTokenError(
      'origin_not_allowed',
      `\`${origin}\` is not in the server's SIGN_CORS_ORIGINS, so a page there could not call it; ask the operator to add it`,
      { origin },
    );
  }
  const uses = readWhole(fields, 'uses', UPLOAD_TOKEN_LIMITS.defaultUses, UPLOAD_TOKEN_LIMITS.maxUses);
  const ttlSeconds = readWhole(
    fields,
    'ttl_seconds',
    UPLOAD_TOKEN_LIMITS.defaultTtlSeconds,
    UPLOAD_TOKEN_LIMITS.maxTtlSeconds,
  );
  await store.removeExpiredUploadTokens(now - UPLOAD_TOKEN_LIMITS.sweepGraceMs);
  const token = `${UPLOAD_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = now + ttlSeconds * 1000;
  await store.insertUploadToken({ hash: hashUploadToken(token), origin, uses, expiresAt, createdAt: now });
  return { token, origin, expires_at: new Date(expiresAt).toISOString(), uses };
}

/**
 * Check an upload token before its upload waits for admission: known, from its origin, not expired, not
 * used up. Nothing is taken yet ({@link useUploadToken} does that once the upload is admitted).
 *
 * @throws {UploadTokenError} `unknown` (unknown or swept), `wrong_origin`, `expired`, `used_up`.
 */
export async function checkUploadToken(
  store: UploadTokenStore,
  hash: string,
  requestOrigin: string | undefined,
  now = Date.now(),
): Promise<void> {
  const token = await store.findUploadToken(hash);
  if (token === undefined) {
    throw new UploadTokenError(
      'unknown',
      'The upload token is not valid (unknown, or expired long ago); mint a new one',
    );
  }
  if (requestOrigin !== token.origin) {
    throw new UploadTokenError(
      'wrong_origin',
      `This upload token works only from \`${token.origin}\`; the request came from ${requestOrigin === undefined ? 'no origin' : `\`${requestOrigin.slice(0, 200)}\``}`,
      { origin: token.origin },
    );
  }
  refuseSpent(token, now);
}

/**
 * Take one use of an upload token for an admitted upload (atomically, see the store).
 *
 * @throws {UploadTokenError} as {@link checkUploadToken} when it expired or was used up meanwhile.
 */
export async function useUploadToken(store: UploadTokenStore, hash: string, now = Date.now()): Promise<void> {
  if ((await store.useUploadToken(hash, now)) !== undefined) return;
  const token = await store.findUploadToken(hash);
  if (token !== undefined) refuseSpent(token, now);
  throw new UploadTokenError(
    'unknown',
    'The upload token is not valid (unknown, or expired long ago); mint a new one',
  );
}

function refuseSpent(token: { uses: number; used: number; expiresAt: number }, now: number): void {
  if (token.expiresAt <= now) {
    throw new UploadTokenError(
      'expired',
      `The upload token expired at ${new Date(token.expiresAt).toISOString()}; mint a new one`,
      { expired_at: new Date(token.expiresAt).toISOString() },
    );
  }
  if (token.used >= token.uses) {
    throw new UploadTokenError(
      'used_up',
      `The upload token was good for ${token.uses} upload${token.uses === 1 ? '' : 's'} and all were made; mint a new one`,
      { uses: token.uses },
    );
  }
}
