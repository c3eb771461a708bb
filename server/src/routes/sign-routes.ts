import { Hono, type MiddlewareHandler } from 'hono';
import type { FileAnalyzer } from '../analysis/file-analyzer.js';
import { describeRecord } from '../describe-record.js';
import type { FileSigner } from '../file-signer.js';
import { getUpload, type Upload } from '../middleware/read-upload.js';
import { fileUrls } from '../public-urls.js';
import type { RelayPublishing } from '../publishing/relay-publishing.js';

/** Options of {@link createSignRoutes}. */
export interface SignRoutesOptions {
  fileSigner: FileSigner;
  /** The gate every upload route shares (rate limit, token, admission, body read: `uploadGuard`). */
  uploadGuard: MiddlewareHandler<{ Variables: { upload: Upload } }>;
  /** Reads the upload off the event loop. */
  analyzer: FileAnalyzer;
  baseUrl: string;
  cdnUrl: string;
  /** Sends each new event to the configured relays (`published_to`); none: `published_to` is `[]`. */
  publishing?: RelayPublishing;
}

/**
 * `POST /api/sign-image-v2`: sign an uploaded image, PDF or Markdown/TXT file (multipart field `file` or
 * `image`, `Authorization: Bearer` one of `SIGN_API_TOKENS`). Answers the existing VisionFusen shape:
 * `{ success, hash, file_type, mime_type, size_bytes, dimensions?, metadata, urls, event, published_to }`.
 * `published_to` lists exactly the relays that answered `OK` true for the event; the others keep it in the
 * outbox and get it again later.
 */
export function createSignRoutes(options: SignRoutesOptions): Hono<{ Variables: { upload: Upload } }> {
  const app = new Hono<{ Variables: { upload: Upload } }>();
  app.post('/sign-image-v2', options.uploadGuard, async (c) => {
    const upload = getUpload(c);
    const analysis = await options.analyzer.analyze(upload);
    const record = await options.fileSigner.sign(upload.bytes, upload.name, analysis);
    const description = describeRecord(record, fileUrls(record, options.baseUrl, options.cdnUrl));
    const publishedTo = (await options.publishing?.publish(record.event)) ?? [];
    return c.json({ success: true, ...description, published_to: publishedTo }, 200);
  });
  return app;
}
