import { Hono, type MiddlewareHandler } from 'hono';
import type { FileAnalyzer } from '../../analysis/file-analyzer.js';
import { fileUrls } from '../../records/public-urls.js';
import { bindRecord } from '../../records/verify-record.js';
import { requireAuthor } from '../../signing/file-signer.js';
import type { RecordStore } from '../../storage/record-store.js';
import type { ApiError } from '../api-error.js';
import { answerFor } from '../error-answers.js';
import { getUpload, type Upload } from '../middleware/read-upload.js';

/** Options of {@link createInspectRoutes}. */
export interface InspectRoutesOptions {
  records: RecordStore;
  /** The gate every upload route shares (rate limit, token, admission, body read: `uploadGuard`). */
  uploadGuard: MiddlewareHandler<{ Variables: { upload: Upload } }>;
  /** Reads the upload off the event loop. */
  analyzer: FileAnalyzer;
  baseUrl: string;
  cdnUrl: string;
}

/**
 * `POST /api/inspect`: what signing would see in a file, without signing or storing anything — type, hash,
 * author, title, whether it can be signed (`signable`, with the `AUTHOR_REQUIRED` message when not) and
 * whether it already is (`already_signed`, with its URLs). Behind the same gate as signing: a sign token,
 * and the same rate limit and admission budgets (the server README says why). Broken or unsupported files
 * answer `INVALID_FORMAT` as signing does.
 */
export function createInspectRoutes(options: InspectRoutesOptions): Hono<{ Variables: { upload: Upload } }> {
  const app = new Hono<{ Variables: { upload: Upload } }>();
  app.post('/inspect', options.uploadGuard, async (c) => {
    const upload = getUpload(c);
    const name = upload.name;
    const analysis = await options.analyzer.analyze(upload);
    let problem: ApiError | undefined;
    try {
      requireAuthor(analysis, name);
    } catch (error) {
      problem = answerFor(error);
      if (problem === undefined) throw error;
    }
    const stored = await options.records.findByHash(analysis.hash);
    // What a record reports comes from its signed event (bindRecord), never from its columns alone.
    const existing = stored === undefined ? undefined : bindRecord(stored);
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
        ...(analysis.authorSource === undefined ? {} : { author_source: analysis.authorSource }),
        title: analysis.title ?? null,
        ...(analysis.description === undefined ? {} : { description: analysis.description }),
      },
      signable: problem === undefined && existing === undefined,
      ...(problem === undefined ? {} : { error: problem.code, message: problem.message }),
      already_signed: existing !== undefined,
      ...(existing === undefined ? {} : { urls: fileUrls(existing, options.baseUrl, options.cdnUrl) }),
    });
  });
  return app;
}
