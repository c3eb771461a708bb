import type { Context, MiddlewareHandler, Next } from 'hono';
import { MULTIPART_OVERHEAD } from '../../config/setting-values.js';
import { ApiError } from '../api-error.js';
import { parseMultipart, readBoundary } from './multipart.js';

export { MULTIPART_OVERHEAD };

/**
 * The uploaded file, as {@link readUpload} leaves it in the context. `bytes` may be replaced while the
 * upload is handled (the analyzer moves the buffer to a worker and back); the buffer it ends with is freed.
 */
export interface Upload {
  bytes: Uint8Array<ArrayBuffer>;
  name: string;
  /**
   * The upload is handled: free its buffer and its admission slot now, before the answer (the sign route
   * calls it before waiting for relays). Called anyway once the upload is answered; the bytes are gone after.
   */
  release(): void;
}

/** Set by `admitUploads`: gives the upload's admission slot back (idempotent). */
export type ReleaseAdmission = () => void;

/** An oversized body is read and discarded up to this many times the limit, so the client gets the 413. */
const DRAIN_LIMIT_FACTOR = 4;

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'FILE_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes`, {
    max_bytes: maxBytes,
  });
}

/**
 * Read a request body into one buffer, refusing it past `maxBytes`. With a `Content-Length` the buffer is
 * allocated once at its final size; the file part is then a view into it, so an upload costs its size once.
 */
async function readBody(
  request: Request,
  incoming: AsyncIterable<Uint8Array> | undefined,
  maxBytes: number,
  fileLimit: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN);
  // Under @hono/node-server, read Node's request stream itself: no web-stream copies of every chunk.
  const source = incoming ?? (request.body === null ? undefined : streamChunks(request.body));
  if (source === undefined) return new Uint8Array(0);
  const reader = source[Symbol.asyncIterator]();
  let buffer = new Uint8Array(
    Number.isInteger(declared) && declared >= 0 && declared <= maxBytes ? declared : 64 * 1024,
  );
  let length = 0;
  if (Number.isInteger(declared) && declared > maxBytes) {
    await drain(reader, DRAIN_LIMIT_FACTOR * maxBytes);
    throw tooLarge(fileLimit);
  }
  while (true) {
    const { done, value } = await reader.next();
    if (done) break;
    if (length + value.byteLength > maxBytes) {
      await drain(reader, DRAIN_LIMIT_FACTOR * maxBytes);
      throw tooLarge(fileLimit);
    }
    if (length + value.byteLength > buffer.length) {
      const grown = new Uint8Array(
        Math.min(maxBytes, Math.max(buffer.length * 2, length + value.byteLength)),
      );
      grown.set(buffer.subarray(0, length));
      buffer = grown;
    }
    buffer.set(value, length);
    length += value.byteLength;
    if (incoming !== undefined) release(value);
  }
  return buffer.subarray(0, length);
}

/**
 * Free a chunk of Node's request stream once it is copied, instead of leaving it to the garbage collector:
 * Node's HTTP parser hands each body chunk over in an ArrayBuffer of its own, so without this a 10 MB upload
 * holds 10 MB of spent chunks on top of its buffer until the next collection. Only a chunk that spans its
 * whole ArrayBuffer is released (never a slice of a shared pool).
 */
function release(chunk: Uint8Array): void {
  if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.byteLength >= 4096)
    detach(chunk.buffer as ArrayBuffer);
}

/**
 * Detach an ArrayBuffer (`transfer(0)`): its memory is freed at once, and every view of it becomes empty.
 * One already detached (moved to a worker) is left alone.
 */
function detach(buffer: ArrayBuffer): void {
  const movable = buffer as ArrayBuffer & { detached?: boolean; transfer?: (length: number) => ArrayBuffer };
  if (movable.detached !== true) movable.transfer?.(0);
}

/** Read and discard the rest of a body (up to `maxBytes`) so a client still sending receives the answer. */
async function drain(reader: AsyncIterator<Uint8Array>, maxBytes: number): Promise<void> {
  let seen = 0;
  try {
    while (seen <= maxBytes) {
      const { done, value } = await reader.next();
      if (done) return;
      seen += value.byteLength;
    }
    await reader.return?.();
  } catch {
    // The client went away: nothing left to answer.
  }
}

async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Node's request stream when running under `@hono/node-server` (absent in `app.request()` tests). */
function nodeIncoming(c: Context): AsyncIterable<Uint8Array> | undefined {
  const incoming = (
    c.env as { incoming?: AsyncIterable<Uint8Array> & { readableEnded?: boolean } } | undefined
  )?.incoming;
  return incoming !== undefined && Symbol.asyncIterator in incoming && !incoming.readableEnded
    ? incoming
    : undefined;
}

/**
 * Let the client of a request refused before its body was read (rate limit, token, admission, a route that
 * takes no body: any answer of 400 or more to a request with a body nobody read) read its answer. The answer
 * goes out at once, as before; the body is then read and thrown away, up to `maxBytes`, and only then is the
 * answer ended (its `Content-Length` lets the client see it complete at once). Answered and ended while the
 * client still sends, the connection would be closed with the body unread (the Node adapter drains it for
 * 500 ms, then closes the socket), and the client — still sending, or reading only once it has sent
 * everything, as Python's http.client and requests do — gets a reset (ECONNRESET, EPIPE) in place of the
 * answer: of 60 parallel 24 MiB inspects, every refused client that reads after sending, and now and then one
 * that reads while sending. The discarded body costs its bytes on the wire, one chunk of memory at a time, and
 * no admission slot. A body declared larger than `maxBytes` is left as it was: reading part of it would not
 * save the connection. Put it in front of every route.
 */
export function discardUnreadBody(maxBytes: number): MiddlewareHandler {
  return async function discardUnreadBodyMiddleware(c, next) {
    await next();
    const method = c.req.method;
    const answer = c.res;
    if (method === 'GET' || method === 'HEAD' || answer.status < 400) return;
    const incoming = nodeIncoming(c) as
      | (AsyncIterable<Uint8Array> & { readableDidRead?: boolean })
      | undefined;
    // Unread: no route reached the body. One that read part of it (a 413) has drained it its own way.
    if (incoming === undefined || incoming.readableDidRead === true) return;
    const declared = Number(c.req.header('Content-Length') ?? Number.NaN);
    const hasBody = declared > 0 || c.req.header('Transfer-Encoding') !== undefined;
    if (!hasBody || declared > maxBytes) return;
    const drained = drain(incoming[Symbol.asyncIterator](), maxBytes);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const headers = new Headers(answer.headers);
    headers.set('Content-Length', String(bytes.byteLength));
    c.res = undefined; // replaced, not merged with the answer's headers (copied above)
    c.res = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
        },
        async pull(controller) {
          await drained;
          controller.close();
        },
      }),
      { status: answer.status, headers },
    );
  };
}

/**
 * Read a multipart upload's `file` (or `image`) field: a body over `maxBytes` (plus room for the multipart
 * framing) is refused with 413 `FILE_TOO_LARGE` as soon as that is known; a body that is not multipart, or
 * has no such field, gives 400 `NO_FILE`. The file is put in the context as `upload`; its bytes are valid
 * until the handler has answered, then their buffer is freed (so keep a copy of anything needed later).
 *
 * The size limit is this reader's own, not Hono's `bodyLimit`: that middleware opens the request's web
 * stream (`c.req.raw.body`), which under @hono/node-server starts copying Node's request stream into it,
 * and it buffers a body without `Content-Length` in full before the route sees it. Measured with one 10 MB
 * upload (Node 24, peak RSS growth of the process): this reader alone 11.8 MB with `Content-Length`, 27.8 MB
 * chunked; with `bodyLimit` in front 21.8 MB and 51.9 MB. It also answers a too-large body only after the
 * client has sent it (read and dropped, up to 4× the limit), so the client sees the 413 instead of a reset.
 */
export function readUpload(
  maxBytes: number,
): MiddlewareHandler<{ Variables: { upload: Upload; releaseAdmission?: ReleaseAdmission } }> {
  return async function readUploadMiddleware(c, next) {
    const boundary = readBoundary(c.req.header('Content-Type') ?? '');
    if (boundary === undefined) {
      throw new ApiError(
        400,
        'NO_FILE',
        'Send the file as multipart/form-data in the field `file` (or `image`)',
      );
    }
    const body = await readBody(c.req.raw, nodeIncoming(c), maxBytes + MULTIPART_OVERHEAD, maxBytes);
    let file: ReturnType<typeof parseMultipart>[number] | undefined;
    try {
      let parts: ReturnType<typeof parseMultipart>;
      try {
        parts = parseMultipart(body, boundary);
      } catch (error) {
        throw new ApiError(
          400,
          'NO_FILE',
          `The body is not valid multipart/form-data: ${(error as Error).message}`,
        );
      }
      file = parts.find((part) => part.name === 'file') ?? parts.find((part) => part.name === 'image');
      if (file === undefined || file.fileName === undefined) {
        throw new ApiError(400, 'NO_FILE', 'No file in the field `file` (or `image`)');
      }
      if (file.data.byteLength > maxBytes) throw tooLarge(maxBytes);
    } catch (error) {
      detach(body.buffer);
      throw error;
    }
    const name = (file.fileName || 'upload').replace(/[\\/]/g, '_').slice(-255);
    await holdUpload(c, body, file.data, name, next);
  };
}

/**
 * Read a raw upload (Blossom `PUT /upload`: the body is the file, kept exactly as received): a body over
 * `maxBytes` is refused with 413 `FILE_TOO_LARGE` as soon as that is known, an empty one with 400 `NO_FILE`.
 * Like {@link readUpload} it puts the file in the context as `upload` (named `blob`; the route names it once
 * it knows the hash), whose buffer is freed once the upload is answered.
 */
export function readRawUpload(
  maxBytes: number,
): MiddlewareHandler<{ Variables: { upload: Upload; releaseAdmission?: ReleaseAdmission } }> {
  return async function readRawUploadMiddleware(c, next) {
    const body = await readBody(c.req.raw, nodeIncoming(c), maxBytes, maxBytes);
    if (body.byteLength === 0) {
      detach(body.buffer);
      throw new ApiError(
        400,
        'NO_FILE',
        'The request body is empty: send the file as the body of `PUT /upload`',
      );
    }
    await holdUpload(c, body, body, 'blob', next);
  };
}

/**
 * Put the file `bytes` (read into `body`) in the context as `upload` for the rest of the request. Its
 * `release` frees the buffers — `body`, and the one the bytes came back in from the analysis worker — now, not
 * at the next collection, then gives the admission slot to the next upload; it runs at the latest once the
 * upload is stored or refused, and answered.
 */
async function holdUpload(
  c: Context<{ Variables: { upload: Upload; releaseAdmission?: ReleaseAdmission } }>,
  body: Uint8Array<ArrayBuffer>,
  bytes: Uint8Array<ArrayBuffer>,
  name: string,
  next: Next,
): Promise<void> {
  const admitted: ReleaseAdmission | undefined = c.get('releaseAdmission');
  const upload: Upload = {
    bytes,
    name,
    release() {
      detach(body.buffer);
      detach(this.bytes.buffer);
      admitted?.();
    },
  };
  c.set('upload', upload);
  try {
    await next();
  } finally {
    upload.release();
  }
}

/** The upload {@link readUpload} stored. */
export function getUpload(c: Context<{ Variables: { upload: Upload } }>): Upload {
  return c.get('upload');
}
