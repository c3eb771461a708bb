import { type Context, Hono } from 'hono';
import { npubEncode } from 'nostr-tools/nip19';
import { ApiError } from '../api-error.js';
import { renderBadge } from '../badge.js';
import { describeRecord } from '../describe-record.js';
import { createSecurityHeaders } from '../middleware/security-headers.js';
import { fileUrls } from '../public-urls.js';
import type { RecordStore } from '../storage/record-store.js';
import { checkStoredEvent } from '../verify-record.js';

/** Options of {@link createVerifyRoutes}. */
export interface VerifyRoutesOptions {
  records: RecordStore;
  baseUrl: string;
  cdnUrl: string;
  /** Whether the service is served over HTTPS (adds HSTS). */
  https: boolean;
}

/** How many serialized verify answers are kept for reuse (each a few KiB). */
const MAX_CACHED_ANSWERS = 5000;

/** A verify answer as sent, and the record store's change stamp it was built under. */
interface CachedAnswer {
  stamp: string;
  status: 200 | 404;
  body: string;
}

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
 * signer, signed_at, urls, checks, reasons }`; 404 `{ verified: false, hash, message, sign_url }` when unknown,
 * 400 for a malformed hash. Each answer reflects the stored record at the time of the call: the record is
 * read and its event's id, signature and `x` tag checked whenever the store may have changed since the
 * answer was last built (see {@link RecordStore.readChangeStamp}, asked on every call).
 * `GET /api/badge?hash=` → an SVG badge linking to the verify page.
 */
export function createVerifyRoutes(options: VerifyRoutesOptions): Hono {
  const app = new Hono();
  const { records, baseUrl, cdnUrl } = options;
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
  const answer = (body: string, status: number) => new Response(body, { status, headers: jsonHeaders });
  const preflight = (c: Context) =>
    c.body(null, 204, {
      ...security,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Max-Age': '86400',
    });

  /** Read the record and check its event: the full answer, built from what is stored now. */
  const buildAnswer = async (hash: string): Promise<Omit<CachedAnswer, 'stamp'>> => {
    const record = await records.findByHash(hash);
    if (record === undefined) {
      const unknown = {
        verified: false,
        hash,
        message: 'No file with this SHA-256 hash was signed here.',
        sign_url: `${baseUrl}/tools/sign`,
      };
      return { status: 404, body: JSON.stringify(unknown) };
    }
    const verdict = checkStoredEvent(record.event, hash);
    const description = describeRecord(record, fileUrls(record, baseUrl, cdnUrl));
    const body = JSON.stringify({
      verified: verdict.verified,
      ...description,
      event: { ...record.event, npub: npubEncode(record.event.pubkey) },
      checks: verdict.checks,
      message: verdict.verified
        ? `Signed by ${record.authors.join(', ')} with ${description.signer.npub}.`
        : `Not verified: ${verdict.reasons.join(' ')}`,
      reasons: verdict.reasons,
    });
    return { status: 200, body };
  };

  app.options('/verify', preflight);
  app.get('/verify', (c): Response | Promise<Response> => {
    const raw = c.req.query('hash');
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
    // The stamp is read before the record: a change after it shows as a new stamp on the next call.
    const stamp = records.readChangeStamp?.();
    const cached = answers.get(hash);
    if (stamp !== undefined && cached?.stamp === stamp) return answer(cached.body, cached.status);
    return buildAnswer(hash).then((built) => {
      if (stamp !== undefined) {
        if (answers.size >= MAX_CACHED_ANSWERS) answers.clear();
        answers.set(hash, { stamp, ...built });
      }
      return answer(built.body, built.status);
    });
  });

  app.options('/badge', preflight);
  app.get('/badge', async (c) => {
    const hash = readHashParam(c.req.query('hash'));
    const record = hash === undefined ? undefined : await records.findByHash(hash);
    const verified =
      record !== undefined && hash !== undefined && checkStoredEvent(record.event, hash).verified;
    const href = record === undefined ? `${baseUrl}/verify` : `${baseUrl}/verify/${record.eventId}`;
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
