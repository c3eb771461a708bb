import { Hono, type MiddlewareHandler } from 'hono';
import type { FileAnalyzer } from '../../analysis/file-analyzer.js';
import { SERVER_DEFAULTS } from '../../config/config.js';
import type { RelayPublishing } from '../../publishing/relay-publishing.js';
import { describeRecord } from '../../records/describe-record.js';
import { fileUrls } from '../../records/public-urls.js';
import type { FileSigner } from '../../signing/file-signer.js';
import { getUpload, type Upload } from '../middleware/read-upload.js';

/** Options of {@link createSignRoutes}. */
export interface SignRoutesOptions {
  fileSigner: FileSigner;
  /** The gate every upload route shares (rate limit, token, admission, body read: `uploadGuard`). */
  uploadGuard: MiddlewareHandler<{ Variables: { upload: Upload } }>;
  /** Reads the upload off the event loop. */
  analyzer: FileAnalyzer;
  baseUrl: string;
  cdnUrl: string;
  /** The publisher loop that sends each new event to the configured relays; none: `published_to` is `[]`. */
  publishing?: RelayPublishing;
  /** How long an answer waits for the relays to confirm its event (`published_to`), in ms at most (default 2 000; see `RelayPublishing.waitForDelivery`). */
  relayWaitMs?: number;
}

/**
 * `POST /api/sign-image-v2`: sign an uploaded image, PDF or Markdown/TXT file (multipart field `file` or
 * `image`, `Authorization: Bearer` one of `SIGN_API_TOKENS`). Answers the existing VisionFusen shape:
 * `{ success, hash, file_type, mime_type, size_bytes, dimensions?, metadata, urls, event, published_to }`.
 * The record and its relay outbox rows are committed together; then the upload's buffer and admission slot
 * are given back, the publisher loop is woken, and the answer waits a little for the relays (`relayWaitMs` at most):
 * `published_to` lists those that answered `OK` true by then. The others get the event as the loop delivers
 * it (the verify API's `published_to` shows the deliveries so far).
 */
export function createSignRoutes(options: SignRoutesOptions): Hono<{ Variables: { upload: Upload } }> {
  const app = new Hono<{ Variables: { upload: Upload } }>();
  app.post('/sign-image-v2', options.uploadGuard, async (c) => {
    const upload = getUpload(c);
    const analysis = await options.analyzer.analyze(upload);
    const record = await options.fileSigner.sign(upload.bytes, upload.name, analysis);
    upload.release(); // waiting for relays holds no upload slot and no upload bytes
    const description = describeRecord(record, fileUrls(record, options.baseUrl, options.cdnUrl));
    options.publishing?.wake();
    const publishedTo =
      (await options.publishing?.waitForDelivery(
        record.eventId,
        options.relayWaitMs ?? SERVER_DEFAULTS.relayWaitMs,
      )) ?? [];
    // Where the author was read (`metadata.author_source`) is said at signing only: the event does not state it.
    const metadata = {
      ...description.metadata,
      ...(analysis.authorSource === undefined ? {} : { author_source: analysis.authorSource }),
    };
    return c.json({ success: true, ...description, metadata, published_to: publishedTo }, 200);
  });
  return app;
}
