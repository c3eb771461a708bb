import { type Context, Hono } from 'hono';
import type { RecordChecker } from '../../records/checked-records.js';
import { describeRecord, npubOf } from '../../records/describe-record.js';
import { fileUrls, verifyPageUrl } from '../../records/public-urls.js';
import { judgeUnknownHash, UNKNOWN_HASH_MESSAGE } from '../../records/verify-record.js';
import { renderBadge } from '../../web/badge.js';
import { ApiError } from '../api-error.js';
import { createSecurityHeaders } from '../middleware/security-headers.js';

/** Options of {@link createVerifyRoutes}. */
export interface VerifyRoutesOptions {
  /** Reads and checks records (their event, their fields, their stored file). */
  checker: RecordChecker;
  baseUrl: string;
  cdnUrl: string;
  /** Whether the service is served over HTTPS (adds HSTS). */
  https: boolean;
  /** The relays that have taken an event so far (default: none configured, `[]`). */
  publishedTo?: (eventId: string) => Promise<string[]>;
}

/** How many serialized verify answers are kept for reuse (each a few KiB). */
const MAX_CACHED_ANSWERS = 5000;

/**
 * A verify answer as sent, and what it was built under: the record store's change stamp and, for a record,
 * its stored file's key and stamp.
 */
interface CachedAnswer {
  stamp: string;
  fileKey: string | undefined;
  fileVersion: string | undefined;
  status: 200 | 404;
  /** The JSON, UTF-8 encoded once (the adapter then writes it without encoding or measuring it again). */
  body: Uint8Array<ArrayBuffer>;
}

/** `hash` and `url` together (`/verify`, `/api/verify`, `/api/verify-page`): which to check cannot be told. */
export const HASH_AND_URL = new ApiError(
  400,
  'INVALID_QUERY',
  'Give either `hash` (a file) or `url` (a page), not both',
);

/** A hash as given by a person: lowercase hex, an optional `sha256:` prefix; `undefined` if malformed. */
export function readHashParam(value: string | undefined): string | undefined {
  const hash = value
    ?.trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  return hash !== undefined && /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
}

/**
 * The open verify API, CORS open to every origin:
 * `GET /api/verify?hash=` → 200 `{ verified, hash, event: { id, pubkey, npub, created_at, … }, metadata,
 * signer, signed_at, urls, published_to, checks, reasons, verdict, problems }` (`published_to`: the relays
 * that have taken the event so far, growing as the publisher loop delivers it; `verdict` and `problems`: the
 * same decision as the rule book's `judgeFileEvent`, with `file.*` codes); 404 `{ verified: false, hash,
 * message, sign_url, verdict: 'not_found', problems: [file.not_found] }` when unknown,
 * 400 for a malformed hash. Each answer reflects the stored record and file at the time of the call: the
 * record is read and checked ({@link RecordChecker}: event id, signature, `x` tag, every stored field
 * against the event, the stored file against the hash) whenever the store may have changed since the answer
 * was last built (`RecordStore.readChangeStamp`) or the stored file may have (`FileStorage.readVersion`),
 * both asked on every call. What it reports (author, title, type, size, URLs) is what the signed event
 * states, never a stored field as such.
 * `GET /api/badge?hash=` → an SVG badge linking to the verify page, "verified" by the same checks.
 */
export function createVerifyRoutes(options: VerifyRoutesOptions): Hono {
  const app = new Hono();
  const { checker, baseUrl, cdnUrl } = options;
  const { records } = checker;
  const answers = new Map<string, CachedAnswer>();
  // This is the hot path: answers are built as `new Response(body, { headers })` with one plain header object
  // (security headers, open CORS), which @hono/node-server writes as it is (Hono's `c.body()` would first copy
  // more than one header into a `Headers` object, and the adapter copy it back), and a reused answer is
  // returned synchronously (no promise for Hono or the adapter to wait on). `createApp` routes these paths
  // ahead of the site's middleware for that reason; the handlers set the same security headers themselves
  // and never throw for bad input.
  const security = createSecurityHeaders({ https: options.https });
  const jsonHeaders = {
    ...security,
    'Access-Control-Allow-Origin': '*',
    'Content-Type': 'application/json; charset=UTF-8',
  };
  const answer = (body: string | Uint8Array<ArrayBuffer>, status: number) =>
    new Response(body, { status, headers: jsonHeaders });
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const preflight = (c: Context) =>
    c.body(null, 204, {
      ...security,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Max-Age': '86400',
    });

  /** Read the record and check it: the full answer, built from what is stored now. */
  const buildAnswer = async (hash: string): Promise<Omit<CachedAnswer, 'stamp'>> => {
    const checked = await checker.findByHash(hash);
    if (checked === undefined) {
      const unknown = {
        verified: false,
        hash,
        message: UNKNOWN_HASH_MESSAGE,
        sign_url: `${baseUrl}/tools/sign`,
        ...judgeUnknownHash(hash),
      };
      return { fileKey: undefined, fileVersion: undefined, status: 404, body: encode(unknown) };
    }
    const { record, verdict } = checked;
    const description = describeRecord(record, fileUrls(record, baseUrl, cdnUrl));
    const body = encode({
      verified: verdict.verified,
      ...description,
      event: { ...record.event, npub: npubOf(record.event.pubkey) },
      published_to: (await options.publishedTo?.(record.eventId)) ?? [],
      checks: verdict.checks,
      message: verdict.verified
        ? `Signed by ${record.authors.join(', ')} with ${description.signer.npub}.`
        : `Not verified: ${verdict.reasons.join(' ')}`,
      reasons: verdict.reasons,
      verdict: verdict.verdict,
      problems: verdict.problems,
    });
    return { fileKey: record.fileKey, fileVersion: checked.fileVersion, status: 200, body };
  };

  /** Whether a built answer still holds: same store stamp, and (for a record) the same file stamp. */
  const stillHolds = (cached: CachedAnswer | undefined, stamp: string): cached is CachedAnswer =>
    cached !== undefined &&
    cached.stamp === stamp &&
    (cached.fileKey === undefined || checker.hashes.readVersion(cached.fileKey) === cached.fileVersion);

  app.options('/verify', preflight);
  app.get('/verify', (c): Response | Promise<Response> => {
    const raw = c.req.query('hash');
    if (c.req.query('url') !== undefined) return answer(JSON.stringify(HASH_AND_URL.toJSON()), 400);
    const hash = readHashParam(raw);
    if (hash === undefined) {
      const error = new ApiError(
        400,
        'INVALID_HASH',
        `\`hash\` must be 64 hexadecimal characters (SHA-256), got \`${(raw ?? '').slice(0, 100)}\``,
        { verified: false },
      );
      return answer(JSON.stringify(error.toJSON()), 400);
    }
    // The stamps are read before the record and the file: a change after that shows as a new stamp on the
    // next call. An answer about a file whose stamp cannot be told is not reused.
    const stamp = records.readChangeStamp?.();
    const cached = answers.get(hash);
    if (stamp !== undefined && stillHolds(cached, stamp)) return answer(cached.body, cached.status);
    return buildAnswer(hash).then((built) => {
      // Reusable: under a stamp, for a record whose file stamp is known, or "unknown" where the stamp sees
      // every writer at once (a lagging stamp could keep saying "unknown" after another instance signed).
      const reusable =
        built.fileKey === undefined ? records.changeStampLags !== true : built.fileVersion !== undefined;
      if (stamp !== undefined && reusable) {
        if (answers.size >= MAX_CACHED_ANSWERS) answers.clear();
        answers.set(hash, { stamp, ...built });
      } else answers.delete(hash);
      return answer(built.body, built.status);
    });
  });

  app.options('/badge', preflight);
  app.get('/badge', async (c) => {
    const hash = readHashParam(c.req.query('hash'));
    const checked = hash === undefined ? undefined : await checker.findByHash(hash);
    const verified = checked?.verdict.verified === true;
    const href =
      checked === undefined
        ? `${baseUrl}/verify`
        : verified
          ? `${baseUrl}/verify/${checked.record.eventId}`
          : verifyPageUrl(baseUrl, checked.record.hash);
    return c.body(renderBadge(verified, href), 200, {
      ...security,
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-cache',
      'Content-Type': 'image/svg+xml; charset=utf-8',
    });
  });
  return app;
}
