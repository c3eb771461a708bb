import { Hono } from 'hono';
import { ApiError } from '../api-error.js';
import { requireAuthor } from '../file-signer.js';
import { analyzeFile } from '../metadata/analyze-file.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { getUpload, readUpload, type Upload } from '../middleware/read-upload.js';
import { fileUrls } from '../public-urls.js';
import type { RecordStore } from '../storage/record-store.js';

/** Options of {@link createInspectRoutes}. */
export interface InspectRoutesOptions {
  records: RecordStore;
  maxUploadBytes: number;
  rateLimitPerMinute: number;
  baseUrl: string;
  cdnUrl: string;
}

/**
 * `POST /api/inspect`: what signing would see in a file, without signing or storing anything — type, hash,
 * author, title, whether it can be signed (`signable`, with the `AUTHOR_REQUIRED` message when not) and
 * whether it already is (`already_signed`, with its URLs). Open (the sign page calls it before asking for
 * a token), rate-limited like signing. Broken or unsupported files answer `INVALID_FORMAT` as signing does.
 */
export function createInspectRoutes(options: InspectRoutesOptions): Hono<{ Variables: { upload: Upload } }> {
  const app = new Hono<{ Variables: { upload: Upload } }>();
  app.post(
    '/inspect',
    rateLimit({ limit: options.rateLimitPerMinute }),
    readUpload(options.maxUploadBytes),
    async (c) => {
      const { bytes, name } = getUpload(c);
      const analysis = analyzeFile(bytes, name);
      let problem: ApiError | undefined;
      try {
        requireAuthor(analysis, name);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        problem = error;
      }
      const existing = await options.records.findByHash(analysis.hash);
      return c.json({
        success: true,
        file_name: name,
        hash: analysis.hash,
        file_type: analysis.type.kind,
        mime_type: analysis.type.mimeType,
        size_bytes: analysis.sizeBytes,
        ...(analysis.dimensions === undefined ? {} : { dimensions: analysis.dimensions }),
        metadata: {
          author: analysis.authors.join(', '),
          authors: analysis.authors,
          title: analysis.title ?? null,
          ...(analysis.description === undefined ? {} : { description: analysis.description }),
        },
        signable: problem === undefined && existing === undefined,
        ...(problem === undefined ? {} : { error: problem.code, message: problem.message }),
        already_signed: existing !== undefined,
        ...(existing === undefined ? {} : { urls: fileUrls(existing, options.baseUrl, options.cdnUrl) }),
      });
    },
  );
  return app;
}
