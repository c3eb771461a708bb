import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { npubEncode } from 'nostr-tools/nip19';
import { ApiError } from '../api-error.js';
import { renderBadge } from '../badge.js';
import { describeRecord } from '../describe-record.js';
import { fileUrls } from '../public-urls.js';
import type { RecordStore } from '../storage/record-store.js';
import { checkStoredEvent } from '../verify-record.js';

/** Options of {@link createVerifyRoutes}. */
export interface VerifyRoutesOptions {
  records: RecordStore;
  baseUrl: string;
  cdnUrl: string;
}

/** A hash as given by a person: lowercase hex, an optional `sha256:` prefix; `undefined` if malformed. */
export function readHashParam(value: string | undefined): string | undefined {
  const hash = value?.trim().toLowerCase().replace(/^sha256:/, '');
  return hash !== undefined && /^[0-9a-f]{64}$/.test(hash) ? hash : undefined;
}

/**
 * The open verify API, CORS open to every origin:
 * `GET /api/verify?hash=` → 200 `{ verified, hash, event: { id, pubkey, npub, created_at, … }, metadata,
 * signer, signed_at, urls, checks, reasons }` (the stored event's id, signature and `x` tag re-checked),
 * 404 `{ verified: false, hash, message, sign_url }` when unknown, 400 for a malformed hash;
 * `GET /api/badge?hash=` → an SVG badge linking to the verify page.
 */
export function createVerifyRoutes(options: VerifyRoutesOptions): Hono {
  const app = new Hono();
  const { records, baseUrl, cdnUrl } = options;
  const openCors = cors({ origin: '*', allowMethods: ['GET', 'HEAD', 'OPTIONS'] });

  app.on(['GET', 'OPTIONS'], '/verify', openCors, async (c) => {
    const raw = c.req.query('hash');
    const hash = readHashParam(raw);
    if (hash === undefined) {
      throw new ApiError(400, 'INVALID_HASH', `\`hash\` must be 64 hexadecimal characters (SHA-256), got \`${(raw ?? '').slice(0, 100)}\``, {
        verified: false,
      });
    }
    const record = await records.findByHash(hash);
    if (record === undefined) {
      return c.json(
        {
          verified: false,
          hash,
          message: 'No file with this SHA-256 hash was signed here.',
          sign_url: `${baseUrl}/tools/sign`,
        },
        404,
      );
    }
    const verdict = checkStoredEvent(record.event, hash);
    const description = describeRecord(record, fileUrls(record, baseUrl, cdnUrl));
    return c.json({
      verified: verdict.verified,
      ...description,
      event: { ...record.event, npub: npubEncode(record.event.pubkey) },
      checks: verdict.checks,
      message: verdict.verified
        ? `Signed by ${record.authors.join(', ')} with ${description.signer.npub}.`
        : `Not verified: ${verdict.reasons.join(' ')}`,
      reasons: verdict.reasons,
    });
  });

  app.on(['GET', 'OPTIONS'], '/badge', openCors, async (c) => {
    const hash = readHashParam(c.req.query('hash'));
    const record = hash === undefined ? undefined : await records.findByHash(hash);
    const verified = record !== undefined && hash !== undefined && checkStoredEvent(record.event, hash).verified;
    const href = record === undefined ? `${baseUrl}/verify` : `${baseUrl}/verify/${record.eventId}`;
    c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    c.header('Cache-Control', 'no-cache');
    return c.body(renderBadge(verified, href), 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });
  });
  return app;
}
