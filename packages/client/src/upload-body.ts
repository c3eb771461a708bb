import { detectFormat, FORMAT_EXTENSIONS } from '@siegel/formats/embed';

/** A file to upload: a `Blob` or `File`, or its bytes. */
export type FileInput = Blob | Uint8Array | ArrayBuffer;

/** Upload progress: bytes of the request body handed to the runtime's network layer so far, of `total`. */
export interface UploadProgress {
  loaded: number;
  /** The whole request body (the file and its multipart framing), in bytes. */
  total: number;
}

/** A `multipart/form-data` body with the file in the field `file`, as the sign and inspect routes read it. */
export interface UploadBody {
  body: Blob;
  contentType: string;
  fileName: string;
}

const PROGRESS_CHUNK_BYTES = 64 * 1024;

/** `file` as a Blob (bytes are copied once, into the Blob). */
export function toBlob(file: FileInput): Blob {
  if (file instanceof Blob) return file;
  if (file instanceof ArrayBuffer) return new Blob([file]);
  if (file instanceof Uint8Array) return new Blob([file as Uint8Array<ArrayBuffer>]);
  throw new TypeError(`Expected a Blob, File, Uint8Array or ArrayBuffer, got \`${describe(file)}\``);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'object';
}

/**
 * The name an upload is sent under: `fileName` if given, else the `File`'s own name, else `upload.{ext}` for
 * the type its bytes show (`upload.txt` for text: pass `fileName` ending in `.md` for Markdown — the server
 * tells Markdown from plain text by the name alone).
 */
export async function uploadName(blob: Blob, fileName: string | undefined): Promise<string> {
  if (fileName !== undefined && fileName !== '') return fileName;
  const own = (blob as Partial<File>).name;
  if (typeof own === 'string' && own !== '') return own;
  const head = new Uint8Array(await blob.slice(0, 16).arrayBuffer());
  const format = detectFormat(head);
  return `upload.${format === undefined ? 'txt' : FORMAT_EXTENSIONS[format]}`;
}

/**
 * Encode `blob` as `multipart/form-data` (RFC 7578, the field `file`), framing it by reference: the body is
 * a Blob of the framing and the file, not a copy of the file. The file name is escaped as the HTML standard
 * escapes it in forms (`"` → `%22`, CR → `%0D`, LF → `%0A`; UTF-8 as is).
 */
export function multipartBody(blob: Blob, fileName: string): UploadBody {
  const random = new Uint8Array(12);
  crypto.getRandomValues(random);
  const boundary = `----siegel${Array.from(random, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  const escaped = fileName.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const type = blob.type === '' ? 'application/octet-stream' : blob.type;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${escaped}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  return {
    body: new Blob([head, blob, tail]),
    contentType: `multipart/form-data; boundary=${boundary}`,
    fileName,
  };
}

/**
 * A stream of `body` that reports each chunk as the runtime pulls it (in pieces of at most 64 KiB), for a
 * fetch with `duplex: 'half'`. Pulled on demand (high-water mark 0), so a count is what the network layer
 * has taken, not what is read ahead.
 */
export function countingStream(
  body: Blob,
  onProgress: (progress: UploadProgress) => void,
): ReadableStream<Uint8Array> {
  const reader = body.stream().getReader();
  const total = body.size;
  let loaded = 0;
  let pending: Uint8Array | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending === undefined || pending.byteLength === 0) {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          pending = value;
        }
        const piece = pending.subarray(0, PROGRESS_CHUNK_BYTES);
        pending = pending.subarray(piece.byteLength);
        controller.enqueue(piece);
        loaded += piece.byteLength;
        onProgress({ loaded, total });
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

let requestStreamsSupported: boolean | undefined;

/**
 * Whether this runtime's fetch can send a `ReadableStream` body: Node ≥ 18 and Chromium ≥ 105 (over HTTP/2
 * or HTTP/3 only) read `duplex: 'half'`; Deno and workerd stream request bodies without reading `duplex`;
 * Firefox turns the stream into the text `[object ReadableStream]` (so the Request gets a `text/plain` type);
 * Safari takes a stream in a Request but not in fetch, and does not read `duplex` either. The check is the one
 * the Chrome team documents, with Deno and workerd named, since they cannot be told from Safari by it.
 */
export function supportsRequestStreams(): boolean {
  if (requestStreamsSupported !== undefined) return requestStreamsSupported;
  try {
    let duplexRead = false;
    const hasContentType = new Request('http://localhost/', {
      body: new ReadableStream(),
      method: 'POST',
      get duplex() {
        duplexRead = true;
        return 'half';
      },
    } as RequestInit).headers.has('Content-Type');
    requestStreamsSupported = !hasContentType && (duplexRead || streamsWithoutDuplex());
  } catch {
    requestStreamsSupported = false;
  }
  return requestStreamsSupported;
}

function streamsWithoutDuplex(): boolean {
  const global = globalThis as {
    Deno?: { version?: { deno?: unknown } };
    navigator?: { userAgent?: unknown };
  };
  return (
    typeof global.Deno?.version?.deno === 'string' || global.navigator?.userAgent === 'Cloudflare-Workers'
  );
}

/** Options of every method. */
export interface CallOptions {
  /** Stops the call, including a wait before a retry; it rejects with the signal's reason (`AbortError`). */
  signal?: AbortSignal;
}

/** Options of `sign` and `inspect`. */
export interface UploadOptions extends CallOptions {
  /**
   * The name the file is uploaded under (default: a `File`'s own name, else `upload.{ext}` by its bytes,
   * `upload.txt` for text). Markdown needs a name ending in `.md`; the name stands in for a missing title.
   */
  fileName?: string;
  /**
   * Called with the bytes of the request sent so far. Counted as the runtime takes them where it can send a
   * stream (Node, Deno, Chromium over HTTP/2); elsewhere called once with 0 and once with all (see README).
   */
  onProgress?: (progress: UploadProgress) => void;
}
