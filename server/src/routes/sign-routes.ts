import { Hono } from 'hono';
import { describeRecord } from '../describe-record.js';
import type { FileSigner } from '../file-signer.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { getUpload, readUpload, type Upload } from '../middleware/read-upload.js';
import { signAuth } from '../middleware/sign-auth.js';
import { fileUrls } from '../public-urls.js';

/** Options of {@link createSignRoutes}. */
export interface SignRoutesOptions {
  fileSigner: FileSigner;
  signTokens: readonly string[];
  maxUploadBytes: number;
  rateLimitPerMinute: number;
  baseUrl: string;
  cdnUrl: string;
}

/**
 * `POST /api/sign-image-v2`: sign an uploaded image, PDF or Markdown/TXT file (multipart field `file` or
 * `image`, `Authorization: Bearer` one of `SIGN_API_TOKENS`). Answers the existing VisionFusen shape:
 * `{ success, hash, file_type, mime_type, size_bytes, dimensions?, metadata, urls, event, published_to }`.
 */
export function createSignRoutes(options: SignRoutesOptions): Hono<{ Variables: { upload: Upload } }> {
  const app = new Hono<{ Variables: { upload: Upload } }>();
  app.post(
    '/sign-image-v2',
    rateLimit({ limit: options.rateLimitPerMinute }),
    signAuth(options.signTokens),
    readUpload(options.maxUploadBytes),
    async (c) => {
      const { bytes, name } = getUpload(c);
      const record = await options.fileSigner.sign(bytes, name);
      const description = describeRecord(record, fileUrls(record, options.baseUrl, options.cdnUrl));
      return c.json({ success: true, ...description, published_to: [] as string[] }, 200);
    },
  );
  return app;
}
