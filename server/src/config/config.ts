// config/ owns the service's settings: reading them from the environment (`readServerConfig`), their
// defaults (`SERVER_DEFAULTS`), the data directory and its paths, and the values other rooms share with the
// settings (`setting-values.ts`: download window, multipart overhead, origin and public-key lists).
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { readRelaysFromEnv } from '@siegel/core';
import {
  DEFAULT_DOWNLOAD_BUFFERED_BYTES,
  DOWNLOAD_WINDOW_BYTES,
  MULTIPART_OVERHEAD,
  readCorsOrigins,
  readPubkeys,
} from './setting-values.js';

/** The service's settings, as {@link readServerConfig} reads them from the environment. */
export interface ServerConfig {
  /** `HOST`, default `127.0.0.1`. */
  host: string;
  /** `PORT`, default `8787`. */
  port: number;
  /** `BASE_URL`, default `http://localhost:{PORT}`; no trailing slash. */
  baseUrl: string;
  /** `CDN_URL`, default `BASE_URL`; no trailing slash. */
  cdnUrl: string;
  /** `SIEGEL_DATA_DIR`, default `./data` (absolute here). */
  dataDir: string;
  /** `SIGN_API_TOKENS`, comma-separated; default none (signing is refused until one is set). */
  signTokens: string[];
  /** `SIGN_CORS_ORIGINS`, comma-separated serialized origins whose pages may sign with upload tokens; default none. */
  corsOrigins: string[];
  /** `SIGN_PUBKEYS`: Nostr keys (npub or hex, comma-separated) allowed to upload through Blossom (`PUT /upload`), as hex; default none. */
  signPubkeys: string[];
  /** `MAX_UPLOAD_BYTES`, default 25 MiB. */
  maxUploadBytes: number;
  /** `SIGN_RATE_LIMIT`: uploads (sign + inspect together) per client per minute, default 60. */
  rateLimitPerMinute: number;
  /** `MAX_UPLOADS_IN_FLIGHT`: uploads received, read or signed at once, default 8. */
  maxUploadsInFlight: number;
  /** `MAX_BUFFERED_BYTES`: bytes of upload bodies held at once, default 128 MiB (at least one upload). */
  maxBufferedBytes: number;
  /** `UPLOAD_WAIT_MS`: how long an upload waits for room before 503, default 10 000 (0: answer at once). */
  uploadWaitMs: number;
  /** `MAX_DOWNLOAD_BUFFERED_BYTES`: bytes of stored files all downloads hold at once, default 64 MiB (at least one download's 256 KiB). */
  maxDownloadBufferedBytes: number;
  /** `ANALYSIS_WORKERS`: worker threads reading uploads, default the CPUs (at most 4). */
  analysisWorkers: number;
  /** `ANALYSIS_TIMEOUT_MS`: processor time one upload may take to read (10× that on the clock), default 5000. */
  analysisTimeoutMs: number;
  /** `SIEGEL_RELAYS`: comma-separated relays every signed event is published to (`wss://`; `ws://` on loopback); none: off. */
  relays: string[];
  /** `RELAY_RETRY_MS`: wait before an event a relay did not take is offered again, doubling up to 1 h; default 30 000. */
  relayRetryMs: number;
  /** `RELAY_WAIT_MS`: how long a sign answer waits for the relays to confirm its event (`published_to`); at most, default 2 000 (0: not at all); see `RelayPublishing.waitForDelivery`. */
  relayWaitMs: number;
  /** `DATABASE_URL`: `postgres://…` keeps records, the outbox and upload tokens in PostgreSQL; none: SQLite in the data directory. */
  databaseUrl: string | undefined;
  /** `DATABASE_TIMEOUT_MS`: how long a PostgreSQL call or connection attempt waits for an answer before 503 `STORE_UNAVAILABLE` (its connections are then abandoned), default 5000. */
  databaseTimeoutMs: number;
  /** `S3_BUCKET` and the other `S3_*` settings: files in S3-compatible object storage; none: the data directory. */
  s3: S3Config | undefined;
  /** `FILE_REDIRECT`: `proxy` (default) serves files through the server; `presigned` redirects `/{hash}` to a presigned S3 URL (after the record check). */
  fileRedirect: 'proxy' | 'presigned';
  /** `CLAIM_LEASE_MS`: how long a claim on a hash outlives its last renewal (a dead instance's upload), default 60 000. */
  claimLeaseMs: number;
  /** `ORPHAN_SWEEP_MS`: how often each instance deletes stored files without a record, besides at start; default 1 h (0: only at start). */
  orphanSweepMs: number;
  /** The `VERIFY_URL_*` settings: the bounds of verify by URL (`/verify?url=`, `/api/verify-page`). */
  verifyUrl: VerifyUrlLimits;
}

/** The bounds of verify by URL; each instance keeps its own counts. */
export interface VerifyUrlLimits {
  /** `VERIFY_URL_RATE_LIMIT`: page checks asked per client per minute, default 30. */
  rateLimitPerMinute: number;
  /** `VERIFY_URL_HOST_RATE_LIMIT`: fetches of pages of one target host per minute, default 20 (answers from the cache do not count). */
  hostRateLimitPerMinute: number;
  /** `VERIFY_URL_CACHE_MS`: how long an answer is reused, never past the event's or manifest's freshness; default 30 000 (0: never). */
  cacheMs: number;
  /** `VERIFY_URL_MAX_IN_FLIGHT`: checks running at once, default 8 (one more: 503 `SERVER_BUSY`). */
  maxInFlight: number;
  /** `VERIFY_URL_TIMEOUT_MS`: time for one whole check (page, event, manifest, relays, NIP-05), default 20 000. */
  timeoutMs: number;
  /** `VERIFY_URL_REQUEST_TIMEOUT_MS`: time for one request or relay lookup, default 8 000. */
  requestTimeoutMs: number;
  /** `VERIFY_URL_MAX_PAGE_BYTES`: largest page (or file the check reads), default 5 MiB. */
  maxPageBytes: number;
  /** `VERIFY_URL_MAX_REDIRECTS`: redirects followed per request, default 5 (0: none). */
  maxRedirects: number;
}

/** The `S3_*` settings (credentials come from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`, or the AWS SDK's usual chain). */
export interface S3Config {
  /** `S3_BUCKET`. */
  bucket: string;
  /** `S3_ENDPOINT`: the service's address (MinIO, R2, Garage); none: AWS S3. */
  endpoint: string | undefined;
  /** `S3_REGION`, default `us-east-1` (R2: `auto`; Garage: its `s3_region`, often `garage`). */
  region: string;
  /** `S3_FORCE_PATH_STYLE`: `true` for `{endpoint}/{bucket}/{key}` (MinIO, Garage); default `false`. */
  forcePathStyle: boolean;
  /** `S3_PREFIX`: a folder for this service's keys inside the bucket, default none. */
  prefix: string;
  /** `S3_STAMP_MS`: how often a verified file's ETag is asked again (one background `HEAD`), default 15 000. */
  stampMs: number;
}

/** Defaults of every setting. */
export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  dataDir: './data',
  maxUploadBytes: 25 * 1024 * 1024,
  rateLimitPerMinute: 60,
  maxUploadsInFlight: 8,
  /** At least this, and at least one largest upload (see {@link defaultMaxBufferedBytes}). */
  maxBufferedBytes: 128 * 1024 * 1024,
  uploadWaitMs: 10_000,
  maxDownloadBufferedBytes: DEFAULT_DOWNLOAD_BUFFERED_BYTES,
  /** The CPUs this process may use, at most 4. */
  analysisWorkers: Math.max(1, Math.min(4, availableParallelism())),
  analysisTimeoutMs: 5000,
  relayRetryMs: 30_000,
  relayWaitMs: 2000,
  s3Region: 'us-east-1',
  s3StampMs: 15_000,
  databaseTimeoutMs: 5000,
  claimLeaseMs: 60_000,
  orphanSweepMs: 60 * 60_000,
  verifyUrl: {
    rateLimitPerMinute: 30,
    hostRateLimitPerMinute: 20,
    cacheMs: 30_000,
    maxInFlight: 8,
    timeoutMs: 20_000,
    requestTimeoutMs: 8000,
    maxPageBytes: 5 * 1024 * 1024,
    maxRedirects: 5,
  } satisfies VerifyUrlLimits,
} as const;

/** The default `MAX_BUFFERED_BYTES` for an upload limit: 128 MiB, or one largest upload with its framing. */
export function defaultMaxBufferedBytes(maxUploadBytes: number): number {
  return Math.max(SERVER_DEFAULTS.maxBufferedBytes, maxUploadBytes + MULTIPART_OVERHEAD);
}

/**
 * Read the service's settings from `env` (only `main.ts` passes `process.env`).
 *
 * @throws {Error} for a malformed number, URL or pubkey, quoting the value.
 */
export function readServerConfig(env: Record<string, string | undefined>, cwd = process.cwd()): ServerConfig {
  const port = readInteger(env, 'PORT', SERVER_DEFAULTS.port);
  const baseUrl = readUrl(env, 'BASE_URL', `http://localhost:${port}`);
  const maxUploadBytes = readInteger(env, 'MAX_UPLOAD_BYTES', SERVER_DEFAULTS.maxUploadBytes);
  const maxBufferedBytes = readInteger(env, 'MAX_BUFFERED_BYTES', defaultMaxBufferedBytes(maxUploadBytes));
  if (maxBufferedBytes < maxUploadBytes + MULTIPART_OVERHEAD) {
    throw new Error(
      `MAX_BUFFERED_BYTES must hold at least one upload (MAX_UPLOAD_BYTES + ${MULTIPART_OVERHEAD} = ${maxUploadBytes + MULTIPART_OVERHEAD}), got \`${maxBufferedBytes}\``,
    );
  }
  const maxDownloadBufferedBytes = readInteger(
    env,
    'MAX_DOWNLOAD_BUFFERED_BYTES',
    SERVER_DEFAULTS.maxDownloadBufferedBytes,
  );
  if (maxDownloadBufferedBytes < DOWNLOAD_WINDOW_BYTES) {
    throw new Error(
      `MAX_DOWNLOAD_BUFFERED_BYTES must hold at least one download (${DOWNLOAD_WINDOW_BYTES}), got \`${maxDownloadBufferedBytes}\``,
    );
  }
  const s3 = readS3(env);
  return {
    host: env.HOST?.trim() || SERVER_DEFAULTS.host,
    port,
    baseUrl,
    cdnUrl: readUrl(env, 'CDN_URL', baseUrl),
    dataDir: resolve(cwd, env.SIEGEL_DATA_DIR?.trim() || SERVER_DEFAULTS.dataDir),
    signTokens: (env.SIGN_API_TOKENS ?? '')
      .split(',')
      .map((token) => token.trim())
      .filter((token) => token !== ''),
    corsOrigins: readCorsOrigins(env.SIGN_CORS_ORIGINS),
    signPubkeys: readPubkeys('SIGN_PUBKEYS', env.SIGN_PUBKEYS ?? ''),
    maxUploadBytes,
    rateLimitPerMinute: readInteger(env, 'SIGN_RATE_LIMIT', SERVER_DEFAULTS.rateLimitPerMinute),
    maxUploadsInFlight: readInteger(env, 'MAX_UPLOADS_IN_FLIGHT', SERVER_DEFAULTS.maxUploadsInFlight),
    maxBufferedBytes,
    uploadWaitMs: readInteger(env, 'UPLOAD_WAIT_MS', SERVER_DEFAULTS.uploadWaitMs, 0),
    maxDownloadBufferedBytes,
    analysisWorkers: readInteger(env, 'ANALYSIS_WORKERS', SERVER_DEFAULTS.analysisWorkers),
    analysisTimeoutMs: readInteger(env, 'ANALYSIS_TIMEOUT_MS', SERVER_DEFAULTS.analysisTimeoutMs),
    relays: readRelaysFromEnv(env.SIEGEL_RELAYS),
    relayRetryMs: readInteger(env, 'RELAY_RETRY_MS', SERVER_DEFAULTS.relayRetryMs),
    relayWaitMs: readInteger(env, 'RELAY_WAIT_MS', SERVER_DEFAULTS.relayWaitMs, 0),
    databaseUrl: readDatabaseUrl(env.DATABASE_URL),
    databaseTimeoutMs: readInteger(env, 'DATABASE_TIMEOUT_MS', SERVER_DEFAULTS.databaseTimeoutMs),
    s3,
    fileRedirect: readFileRedirect(env.FILE_REDIRECT, s3),
    claimLeaseMs: readInteger(env, 'CLAIM_LEASE_MS', SERVER_DEFAULTS.claimLeaseMs),
    orphanSweepMs: readInteger(env, 'ORPHAN_SWEEP_MS', SERVER_DEFAULTS.orphanSweepMs, 0),
    verifyUrl: readVerifyUrlLimits(env),
  };
}

/** The `VERIFY_URL_*` settings, each defaulting to {@link SERVER_DEFAULTS}' `verifyUrl`. */
function readVerifyUrlLimits(env: Record<string, string | undefined>): VerifyUrlLimits {
  const d = SERVER_DEFAULTS.verifyUrl;
  return {
    rateLimitPerMinute: readInteger(env, 'VERIFY_URL_RATE_LIMIT', d.rateLimitPerMinute),
    hostRateLimitPerMinute: readInteger(env, 'VERIFY_URL_HOST_RATE_LIMIT', d.hostRateLimitPerMinute),
    cacheMs: readInteger(env, 'VERIFY_URL_CACHE_MS', d.cacheMs, 0),
    maxInFlight: readInteger(env, 'VERIFY_URL_MAX_IN_FLIGHT', d.maxInFlight),
    timeoutMs: readInteger(env, 'VERIFY_URL_TIMEOUT_MS', d.timeoutMs),
    requestTimeoutMs: readInteger(env, 'VERIFY_URL_REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    maxPageBytes: readInteger(env, 'VERIFY_URL_MAX_PAGE_BYTES', d.maxPageBytes),
    maxRedirects: readInteger(env, 'VERIFY_URL_MAX_REDIRECTS', d.maxRedirects, 0),
  };
}

/** `DATABASE_URL`: a `postgres://` or `postgresql://` URL, or none (SQLite). Never quoted back: it may hold a password. */
function readDatabaseUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    throw new Error(
      'DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); leave it unset for SQLite in SIEGEL_DATA_DIR',
    );
  }
  return value;
}

/** The `S3_*` settings: none without `S3_BUCKET`; an `S3_*` setting without `S3_BUCKET` is an error. */
function readS3(env: Record<string, string | undefined>): S3Config | undefined {
  const bucket = env.S3_BUCKET?.trim() ?? '';
  if (bucket === '') {
    const stray = ['S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE', 'S3_PREFIX', 'S3_STAMP_MS'].find(
      (name) => (env[name]?.trim() ?? '') !== '',
    );
    if (stray !== undefined)
      throw new Error(`${stray} is set but S3_BUCKET is not: set S3_BUCKET to keep files in S3`);
    return undefined;
  }
  const endpoint = env.S3_ENDPOINT?.trim() || undefined;
  if (endpoint !== undefined) readUrl(env, 'S3_ENDPOINT', endpoint);
  const pathStyle = (env.S3_FORCE_PATH_STYLE?.trim() || 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(pathStyle)) {
    throw new Error(`S3_FORCE_PATH_STYLE must be \`true\` or \`false\`, got \`${env.S3_FORCE_PATH_STYLE}\``);
  }
  const prefix = (env.S3_PREFIX?.trim() ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/.test(prefix)) {
    throw new Error(`S3_PREFIX must be lowercase path segments (a-z, 0-9, . _ -), got \`${env.S3_PREFIX}\``);
  }
  return {
    bucket,
    endpoint,
    region: env.S3_REGION?.trim() || SERVER_DEFAULTS.s3Region,
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
    prefix,
    stampMs: readInteger(env, 'S3_STAMP_MS', SERVER_DEFAULTS.s3StampMs),
  };
}

function readFileRedirect(raw: string | undefined, s3: S3Config | undefined): 'proxy' | 'presigned' {
  const value = raw?.trim().toLowerCase() || 'proxy';
  if (value !== 'proxy' && value !== 'presigned') {
    throw new Error(`FILE_REDIRECT must be \`proxy\` or \`presigned\`, got \`${raw}\``);
  }
  if (value === 'presigned' && s3 === undefined) {
    throw new Error('FILE_REDIRECT=presigned needs files in S3 (S3_BUCKET)');
  }
  return value;
}

/** Path of the SQLite database inside the data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'siegel.sqlite');
}

/** Directory of stored files inside the data directory. */
export function filesPath(dataDir: string): string {
  return join(dataDir, 'files');
}

function readInteger(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min = 1,
): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new Error(
      `${name} must be ${min === 0 ? 'an integer of 0 or more' : 'a positive integer'}, got \`${raw}\``,
    );
  }
  return Number(raw);
}

function readUrl(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got \`${raw}\``);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an absolute http(s) URL, got \`${raw}\``);
  }
  return raw.replace(/\/+$/, '');
}
