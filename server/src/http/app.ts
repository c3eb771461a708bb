// http/ owns the HTTP face of the service: `createApp` (this file), the routes (`routes/`), the middleware
// (`middleware/`: gates, auth, admission, CORS, security headers, reading uploads), the download budget and
// the stored-file stream, and turning errors into answers (`X-Reason` included).
import {
  type ConnectPolicy,
  checkPageAtUrl,
  PUBLIC_ADDRESSES_ONLY,
  type Signer,
  toTerminalSafe,
} from '@siegel/core';
import { type ErrorHandler, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { createFileAnalyzer, type FileAnalyzer } from '../analysis/file-analyzer.js';
import { defaultMaxBufferedBytes, SERVER_DEFAULTS, type VerifyUrlLimits } from '../config/config.js';
import { PageChecks } from '../pages/page-checks.js';
import type { RelayPublishing } from '../publishing/relay-publishing.js';
import { RecordChecker } from '../records/checked-records.js';
import { EventVerifier } from '../records/verify-record.js';
import { FileSigner } from '../signing/file-signer.js';
import type { FileStorage } from '../storage/file-storage.js';
import type { HashClaims, RecordStore } from '../storage/record-store.js';
import { StoreUnavailableError } from '../storage/store-errors.js';
import { StoredFileHashes } from '../storage/stored-file-hashes.js';
import type { UploadTokenStore } from '../storage/upload-token-store.js';
import { DownloadBudget } from './download-budget.js';
import { answerFor } from './error-answers.js';
import { UploadAdmission } from './middleware/admission.js';
import { signCors } from './middleware/cors.js';
import { FixedWindows, rateLimit } from './middleware/rate-limit.js';
import { discardUnreadBody, MULTIPART_OVERHEAD } from './middleware/read-upload.js';
import { createSecurityHeaders, securityHeaders } from './middleware/security-headers.js';
import { uploadGuard } from './middleware/upload-guard.js';
import { createBlossomRoutes } from './routes/blossom-routes.js';
import { createFileRoutes } from './routes/file-routes.js';
import { createInspectRoutes } from './routes/inspect-routes.js';
import { createPageCheckRoutes } from './routes/page-check-routes.js';
import { createPageRoutes } from './routes/page-routes.js';
import { createSignRoutes } from './routes/sign-routes.js';
import { createUploadTokenRoutes } from './routes/upload-token-routes.js';
import { createVerifyRoutes } from './routes/verify-routes.js';

/**
 * What {@link createApp} is built from: the signer, the storage, the records, the hash claims, the upload
 * tokens, and the settings. One database object (`SqliteRecordStore`, `PostgresRecordStore`: a
 * `RecordDatabase`) implements the records, the claims and the tokens; pass it as each.
 */
export interface AppDeps {
  signer: Signer;
  storage: FileStorage;
  /** The records of signed files and their relay outbox. */
  records: RecordStore;
  /** Who may write a hash right now: one writer per hash across every process on the database. */
  claims: HashClaims;
  /** The upload tokens `POST /api/upload-tokens` mints and the upload routes accept. */
  uploadTokens: UploadTokenStore;
  /** Public address of the service (no trailing slash). */
  baseUrl: string;
  /** Where files and event pages are served from (default `baseUrl`). */
  cdnUrl?: string;
  /** Tokens allowed to sign (`SIGN_API_TOKENS`); none → signing is refused. */
  signTokens: readonly string[];
  /** Origins whose pages may call the sign, inspect and upload token routes (`SIGN_CORS_ORIGINS`; default none). */
  corsOrigins?: readonly string[];
  /** Nostr keys (hex) allowed to upload through Blossom (`SIGN_PUBKEYS`); default none. */
  signPubkeys?: readonly string[];
  /** Upload limit in bytes (default 25 MiB). */
  maxUploadBytes?: number;
  /** Uploads (sign + inspect together) per client per minute (default 60). */
  rateLimitPerMinute?: number;
  /** Uploads (sign + inspect together) received, read or signed at once (default 8). */
  maxUploadsInFlight?: number;
  /** Bytes of upload bodies held at once (default 128 MiB, at least one upload's worth). */
  maxBufferedBytes?: number;
  /** How long an upload waits for room before 503 `SERVER_BUSY`, in ms (default 10 000; 0: at once). */
  uploadWaitMs?: number;
  /** Bytes of stored files all downloads hold at once (default 64 MiB; at least 256 KiB, one download). */
  maxDownloadBufferedBytes?: number;
  /** Worker threads that read uploads (default: the CPUs, at most 4; 0: on the event loop, tests only). */
  analysisWorkers?: number;
  /** Processor time one upload may take to read, in ms (default 5000; ten times that on the clock). */
  analysisTimeoutMs?: number;
  /** Where unexpected errors are reported (default `console.error`). */
  logError?: (error: unknown) => void;
  /** The publisher loop for new events (`SIEGEL_RELAYS`); none: `published_to` is always `[]`. */
  publishing?: RelayPublishing;
  /** How long a sign answer waits for relays to confirm its event, in ms at most (default 2 000). */
  relayWaitMs?: number;
  /** How long a claim on a hash outlives its last renewal, in ms (`CLAIM_LEASE_MS`, default 60 000). */
  claimLeaseMs?: number;
  /** `presigned`: `/{hash}` redirects to the storage's presigned URL after the record check (S3 only); default `proxy`. */
  fileRedirect?: 'proxy' | 'presigned';
  /**
   * Which addresses verify by URL may connect to — the page, its redirects, the event file, the manifest and
   * its files, relay hints, NIP-05 (default `PUBLIC_ADDRESSES_ONLY`). Tests replace it to reach loopback.
   */
  connectPolicy?: ConnectPolicy;
  /** The relays verify by URL asks for events and site manifests (`SIEGEL_RELAYS`; default none). */
  verifyRelays?: string[];
  /** The bounds of verify by URL (`VERIFY_URL_*`; each default `SERVER_DEFAULTS.verifyUrl`). */
  verifyUrl?: Partial<VerifyUrlLimits>;
}

/** The built app, the file signer inside it (for `removeOrphans()` at start) and its analyzer (workers). */
export interface SiegelApp {
  app: Hono;
  fileSigner: FileSigner;
  /** Reads uploads in worker threads: `start()` before listening, `close()` at shutdown. */
  analyzer: FileAnalyzer;
  /** Checks stored events and records for this app: `prepare()` before listening loads the fast engine. */
  verifier: EventVerifier;
}

/**
 * Build the Hono app of the file-signing service: sign, inspect and verify APIs, served files and event
 * pages, and the web pages. One router per resource; errors answer `{ success: false, error, message }`.
 *
 * @example
 * ```ts
 * const { app } = createApp({ signer, storage, records: db, claims: db, uploadTokens: db, baseUrl: 'http://localhost:8787', signTokens: ['t'] });
 * const response = await app.request('/api/verify?hash=' + hash);
 * ```
 */
export function createApp(deps: AppDeps): SiegelApp {
  const baseUrl = deps.baseUrl.replace(/\/+$/, '');
  const cdnUrl = (deps.cdnUrl ?? baseUrl).replace(/\/+$/, '');
  const maxUploadBytes = deps.maxUploadBytes ?? SERVER_DEFAULTS.maxUploadBytes;
  const rateLimitPerMinute = deps.rateLimitPerMinute ?? SERVER_DEFAULTS.rateLimitPerMinute;
  const logError =
    deps.logError ??
    ((error: unknown) => console.error(toTerminalSafe((error as Error)?.stack ?? String(error))));
  const analyzer = createFileAnalyzer({
    workers: deps.analysisWorkers ?? SERVER_DEFAULTS.analysisWorkers,
    timeoutMs: deps.analysisTimeoutMs ?? SERVER_DEFAULTS.analysisTimeoutMs,
  });
  // One gate, so sign and inspect share one rate limit and one admission budget (Blossom uploads too).
  const rateLimiter = rateLimit({ limit: rateLimitPerMinute });
  const admission = new UploadAdmission({
    maxInFlight: deps.maxUploadsInFlight ?? SERVER_DEFAULTS.maxUploadsInFlight,
    maxBufferedBytes: deps.maxBufferedBytes ?? defaultMaxBufferedBytes(maxUploadBytes),
    maxWaitMs: deps.uploadWaitMs ?? SERVER_DEFAULTS.uploadWaitMs,
  });
  const guard = uploadGuard({
    signTokens: deps.signTokens,
    maxUploadBytes,
    rateLimitPerMinute,
    admission,
    rateLimiter,
    uploadTokens: deps.uploadTokens,
  });
  const fileSigner = new FileSigner({
    signer: deps.signer,
    storage: deps.storage,
    records: deps.records,
    claims: deps.claims,
    baseUrl,
    cdnUrl,
    // The record and its outbox rows are written in one transaction; the publisher loop sends them.
    deliverTo: deps.publishing?.relays ?? [],
    ...(deps.claimLeaseMs !== undefined && { claimLeaseMs: deps.claimLeaseMs }),
  });
  // What the relays have taken so far, for the verify API and the live event page.
  const publishedTo = async (eventId: string) => (await deps.publishing?.deliveredTo(eventId)) ?? [];

  // Every reading route reads records through one checker: event, stored fields and stored file checked.
  // The verification memo and Schnorr engine are this app's own: two apps in one process share nothing.
  const verifier = new EventVerifier();
  const checker = new RecordChecker(deps.records, new StoredFileHashes(deps.storage), verifier);

  // Verify by URL: one flight per page, a brief cache, a rate per target host and per client.
  const verifyUrl = { ...SERVER_DEFAULTS.verifyUrl, ...deps.verifyUrl };
  const hostWindows = new FixedWindows(verifyUrl.hostRateLimitPerMinute);
  const pageChecks = new PageChecks({
    check: (url) =>
      checkPageAtUrl(url, {
        policy: deps.connectPolicy ?? PUBLIC_ADDRESSES_ONLY,
        relays: deps.verifyRelays ?? [],
        totalTimeoutMs: verifyUrl.timeoutMs,
        requestTimeoutMs: verifyUrl.requestTimeoutMs,
        relayTimeoutMs: verifyUrl.requestTimeoutMs,
        maxPageBytes: verifyUrl.maxPageBytes,
        maxRedirects: verifyUrl.maxRedirects,
      }),
    admitHost: (host) => hostWindows.take(host),
    cacheMs: verifyUrl.cacheMs,
    maxInFlight: verifyUrl.maxInFlight,
  });

  const https = baseUrl.startsWith('https:');
  const errorHeaders = createSecurityHeaders({ https });
  let lastStoreError = 0;
  const handleError: ErrorHandler = (error, c) => {
    const answer = answerFor(error);
    if (answer !== undefined) return c.json(answer.toJSON(), answer.status, errorHeaders);
    if (error instanceof StoreUnavailableError) {
      // The database or the object storage is away: a retry later will do. The cause is for the log, once
      // per 10 s (an outage under load would otherwise write a stack per request).
      const now = Date.now();
      if (now - lastStoreError >= 10_000) {
        lastStoreError = now;
        logError(error.cause ?? error);
      }
      return c.json(
        { success: false, error: 'STORE_UNAVAILABLE', message: `${error.message}; try again shortly` },
        503,
        { ...errorHeaders, 'Retry-After': String(error.retryAfterSeconds) },
      );
    }
    if (error instanceof HTTPException && error.status < 500) {
      return c.json(
        { success: false, error: 'BAD_REQUEST', message: error.message || 'Bad request' },
        error.status,
        errorHeaders,
      );
    }
    logError(error);
    return c.json({ success: false, error: 'INTERNAL_ERROR', message: 'Internal error' }, 500, errorHeaders);
  };

  // Everything but the open verify API: security headers on every response, then one router per resource.
  const site = new Hono();
  // First, so that it wraps every answer: a request refused before its body was read gets its answer, and
  // its body is read and thrown away before the answer ends (the client reads it instead of a reset).
  site.use('*', discardUnreadBody(maxUploadBytes + MULTIPART_OVERHEAD));
  site.use('*', securityHeaders({ https }));
  // CORS for browser pages of SIGN_CORS_ORIGINS (upload tokens); none listed: no CORS header anywhere.
  const corsOrigins = deps.corsOrigins ?? [];
  const cors = signCors(corsOrigins);
  if (cors)
    for (const path of ['/api/sign-image-v2', '/api/inspect', '/api/upload-tokens']) site.use(path, cors);
  site.route(
    '/api',
    createUploadTokenRoutes({ signTokens: deps.signTokens, store: deps.uploadTokens, corsOrigins }),
  );
  site.route(
    '/api',
    createSignRoutes({
      fileSigner,
      uploadGuard: guard,
      analyzer,
      baseUrl,
      cdnUrl,
      ...(deps.publishing && { publishing: deps.publishing }),
      ...(deps.relayWaitMs !== undefined && { relayWaitMs: deps.relayWaitMs }),
    }),
  );
  site.route(
    '/api',
    createInspectRoutes({ records: deps.records, uploadGuard: guard, analyzer, baseUrl, cdnUrl }),
  );
  site.route(
    '/',
    createBlossomRoutes({
      fileSigner,
      records: deps.records,
      analyzer,
      rateLimiter,
      admission,
      maxUploadBytes,
      pubkeys: deps.signPubkeys ?? [],
      signTokens: deps.signTokens,
      baseUrl,
      cdnUrl,
      ...(deps.publishing && { publishing: deps.publishing }),
    }),
  );
  // Ahead of the page routes: `/verify?url=` is answered here, `/verify` without `url` passes on.
  site.route(
    '/',
    createPageCheckRoutes({
      checks: pageChecks,
      limiter: rateLimit({ limit: verifyUrl.rateLimitPerMinute, what: 'page checks' }),
      baseUrl,
    }),
  );
  site.route('/', createPageRoutes({ checker, baseUrl, cdnUrl, maxUploadBytes, publishedTo }));
  site.route(
    '/',
    createFileRoutes({
      storage: deps.storage,
      checker,
      baseUrl,
      cdnUrl,
      // A presigned URL lives 5 minutes: long enough for a slow client to start, short enough to go stale.
      ...(deps.fileRedirect === 'presigned' && { redirect: { seconds: 300 } }),
      downloads: new DownloadBudget({ maxBufferedBytes: deps.maxDownloadBufferedBytes }),
      signTokens: deps.signTokens,
    }),
  );
  site.notFound((c) =>
    c.json({ success: false, error: 'NOT_FOUND', message: `No route for \`${c.req.path}\`` }, 404),
  );
  site.onError(handleError);

  // The verify API is the hot path: its routes are the only ones matched for their paths, so Hono calls the
  // handler directly (no middleware chain) and a synchronous answer stays synchronous. They set the security
  // headers themselves. Any other request falls through to `site`.
  const app = new Hono();
  app.route('/api', createVerifyRoutes({ checker, baseUrl, cdnUrl, https, publishedTo }));
  app.notFound((c) => site.fetch(c.req.raw, c.env));
  app.onError(handleError);
  return { app, fileSigner, analyzer, verifier };
}
