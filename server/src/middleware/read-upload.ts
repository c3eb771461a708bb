import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../api-error.js';

/** The uploaded file, as {@link readUpload} leaves it in the context. */
export interface Upload {
  bytes: Uint8Array;
  name: string;
}

/** Room for multipart boundaries and headers on top of the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** An oversized body is read and discarded up to this many times the limit, so the client gets the 413. */
const DRAIN_LIMIT_FACTOR = 4;

/**
 * Read and discard what is left of a request body (up to `maxBytes`), so a client that is still sending
 * receives the error answer instead of a reset connection. Bodies larger than that are cut off.
 */
async function drainBody(request: Request, maxBytes: number): Promise<void> {
  if (request.bodyUsed || request.body === null) return;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = request.body.getReader();
  } catch {
    return;
  }
  let seen = 0;
  try {
    while (seen <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to answer.
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'FILE_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes`, {
    max_bytes: maxBytes,
  });
}

/**
 * Read a multipart upload's `file` (or `image`) field: the body is cut off past `maxBytes` (413
 * `FILE_TOO_LARGE`, before it is all read), a missing field or a body that is not multipart gives 400
 * `NO_FILE`. The file is put in the context as `upload`.
 */
export function readUpload(maxBytes: number): MiddlewareHandler<{ Variables: { upload: Upload } }>[] {
  const limit = bodyLimit({
    maxSize: maxBytes + MULTIPART_OVERHEAD,
    onError: async (c) => {
      await drainBody(c.req.raw, DRAIN_LIMIT_FACTOR * (maxBytes + MULTIPART_OVERHEAD));
      throw tooLarge(maxBytes);
    },
  });
  const parse: MiddlewareHandler<{ Variables: { upload: Upload } }> = async function readUploadMiddleware(c, next) {
    const type = c.req.header('Content-Type') ?? '';
    if (!/^multipart\/form-data/i.test(type)) {
      throw new ApiError(400, 'NO_FILE', 'Send the file as multipart/form-data in the field `file` (or `image`)');
    }
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody({ all: false });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(400, 'NO_FILE', 'The body is not valid multipart/form-data');
    }
    const file = form.file ?? form.image;
    if (!(file instanceof File)) {
      throw new ApiError(400, 'NO_FILE', 'No file in the field `file` (or `image`)');
    }
    if (file.size > maxBytes) throw tooLarge(maxBytes);
    const name = (file.name || 'upload').replace(/[\\/]/g, '_').slice(-255);
    c.set('upload', { bytes: new Uint8Array(await file.arrayBuffer()), name });
    await next();
  };
  return [limit, parse];
}

/** The upload {@link readUpload} stored. */
export function getUpload(c: Context<{ Variables: { upload: Upload } }>): Upload {
  return c.get('upload');
}
