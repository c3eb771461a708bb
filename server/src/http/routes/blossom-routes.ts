import { FILE_FORMATS, SUPPORTED_FORMATS } from '@siegel/formats';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { FileAnalyzer } from '../../analysis/file-analyzer.js';
import type { RelayPublishing } from '../../publishing/relay-publishing.js';
import { fileUrls } from '../../records/public-urls.js';
import { bindRecord } from '../../records/verify-record.js';
import type { FileSigner } from '../../signing/file-signer.js';
import { SigningError } from '../../signing/signing-error.js';
import type { RecordStore, SignedFileRecord } from '../../storage/record-store.js';
import { hashBytes } from '../../storage/stored-file-hashes.js';
import { ApiError, invalidFormat } from '../api-error.js';
import { admitUploads, type UploadAdmission } from '../middleware/admission.js';
import { type BlossomUploader, blossomAuth, requireBlob } from '../middleware/blossom-auth.js';
import { readRawUpload, type Upload } from '../middleware/read-upload.js';

type BlossomEnv = { Variables: { upload: Upload; uploader: BlossomUploader } };

/** Options of {@link createBlossomRoutes}. */
export interface BlossomRoutesOptions {
  fileSigner: FileSigner;
  records: RecordStore;
  /** Reads the upload off the event loop. */
  analyzer: FileAnalyzer;
  /** The rate limit the sign and inspect routes share (one budget per client address for all uploads). */
  rateLimiter: MiddlewareHandler;
  /** The admission control the sign and inspect routes share. */
  admission: UploadAdmission;
  maxUploadBytes: number;
  /** Nostr keys (hex) allowed to upload (`SIGN_PUBKEYS`). */
  pubkeys: readonly string[];
  /** Sign tokens, which may upload too (`SIGN_API_TOKENS`). */
  signTokens: readonly string[];
  baseUrl: string;
  cdnUrl: string;
  /** Woken after a new event is recorded, so its relays get it. */
  publishing?: RelayPublishing;
}

/** A BUD-02 blob descriptor with the signed event's tags in `nip94` (BUD-08) and the service's own links. */
export interface BlobDescriptor {
  /** `{CDN_URL}/{sha256}.{ext}` (BUD-01). */
  url: string;
  sha256: string;
  size: number;
  type: string;
  /** When the record was written (Unix seconds). */
  uploaded: number;
  /** The tags of the signed kind-1063 event. */
  nip94: string[][];
  /** The signed event itself (signed by the service's key), to publish or check. */
  event: SignedFileRecord['event'];
  /** The service's links for the file: verify page, verify API, event page… (as `POST /api/sign-image-v2`). */
  urls: ReturnType<typeof fileUrls>;
}

/** Describe a record as a Blossom blob descriptor. */
export function describeBlob(record: SignedFileRecord, baseUrl: string, cdnUrl: string): BlobDescriptor {
  const urls = fileUrls(record, baseUrl, cdnUrl);
  const extension = record.fileKey.slice(record.fileKey.lastIndexOf('.') + 1);
  return {
    url: `${urls.blossom}.${extension}`,
    sha256: record.hash,
    size: record.sizeBytes,
    type: record.mimeType,
    uploaded: record.createdAt,
    nip94: record.event.tags,
    event: record.event,
    urls,
  };
}

/** A reason as an HTTP header value: printable ASCII only (others become `?`), at most 500 characters. */
function headerSafe(reason: string): string {
  return reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
}

/**
 * Every refusal carries `X-Reason` (BUD-01), a short human reason: the error's message. The body stays the
 * service's JSON error (`{ success: false, error, message }`).
 */
const reasonHeader: MiddlewareHandler = async function reasonHeaderMiddleware(c, next) {
  await next();
  if (c.res.status < 400 || c.res.headers.has('X-Reason')) return;
  const error = c.error;
  const reason =
    error instanceof ApiError || (error !== undefined && c.res.status < 500)
      ? error.message
      : 'Internal error';
  c.res.headers.set('X-Reason', headerSafe(reason || 'Bad request'));
};

/** The upload's name: its hash, with `.md`/`.txt` when `Content-Type` says so (text is told by its name). */
function uploadName(c: Context, hash: string): string {
  const type = (c.req.header('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase();
  const text = FILE_FORMATS.find((format) => format.kind === 'text' && format.mimeType === type);
  return text === undefined ? hash : `${hash}.${text.extension}`;
}

/**
 * Blossom uploads: `PUT /upload` (BUD-02) and its preflight `HEAD /upload` (BUD-06), with
 * `Authorization: Nostr` (BUD-11, from a key in `SIGN_PUBKEYS`) or `Authorization: Bearer` (a sign token).
 * An upload passes the same gate as `POST /api/sign-image-v2` — one rate limit and admission budget for all
 * upload routes, the body read up to `MAX_UPLOAD_BYTES` — and is signed by the same `FileSigner`, so the
 * author rule and everything else hold alike. The bytes are kept exactly as received. A new blob answers 201,
 * one signed before 200, both with a {@link BlobDescriptor}. Refusals carry `X-Reason`. Open to every origin
 * (`Access-Control-Allow-Origin: *`, preflight included, `X-Reason` exposed), as BUD-01 asks of Blossom
 * servers; the other routes keep their own CORS.
 */
export function createBlossomRoutes(options: BlossomRoutesOptions): Hono<BlossomEnv> {
  const { fileSigner, records, analyzer, maxUploadBytes, baseUrl, cdnUrl } = options;
  const app = new Hono<BlossomEnv>();
  const auth = blossomAuth({
    pubkeys: options.pubkeys,
    signTokens: options.signTokens,
    host: new URL(baseUrl).hostname,
  });
  app.use(
    '/upload',
    cors({
      origin: '*',
      allowMethods: ['HEAD', 'PUT'],
      exposeHeaders: ['X-Reason'],
      maxAge: 86_400,
    }),
    reasonHeader,
  );

  app.put(
    '/upload',
    options.rateLimiter,
    auth,
    // A client that states the hash (`X-SHA-256`, as nostr-tools sends it) learns of a wrong `x` tag before
    // it sends the body; the body's own hash is checked in any case.
    async (c, next) => {
      const stated = c.req.header('X-SHA-256')?.trim().toLowerCase();
      if (stated !== undefined && /^[0-9a-f]{64}$/.test(stated)) requireBlob(c.get('uploader'), stated);
      await next();
    },
    admitUploads(options.admission, maxUploadBytes) as MiddlewareHandler,
    readRawUpload(maxUploadBytes) as MiddlewareHandler,
    async (c) => {
      const upload = c.get('upload');
      const uploader = c.get('uploader');
      const hash = await hashBytes(upload.bytes);
      requireBlob(uploader, hash);
      upload.name = uploadName(c, hash);
      const analysis = await analyzer.analyze(upload);
      let record: SignedFileRecord;
      let status: 200 | 201 = 201;
      try {
        record = await fileSigner.sign(
          upload.bytes,
          `${hash}.${analysis.type.extension}`,
          analysis,
          uploader.pubkey,
        );
      } catch (error) {
        const stored =
          error instanceof SigningError && error.kind === 'already_signed'
            ? await records.findByHash(hash)
            : undefined;
        if (stored === undefined) throw error;
        record = bindRecord(stored); // as its signed event states it
        status = 200;
      }
      upload.release();
      if (status === 201) options.publishing?.wake();
      return c.json(describeBlob(record, baseUrl, cdnUrl), status);
    },
  );

  // Hono answers HEAD from the GET route (body dropped): this is `HEAD /upload`; a GET is no route.
  app.get(
    '/upload',
    async (c, next) => {
      if (c.req.method !== 'HEAD')
        throw new ApiError(404, 'NOT_FOUND', 'No route for `GET /upload`: upload with `PUT /upload`');
      await next();
    },
    options.rateLimiter,
    auth,
    async (c) => {
      const hash = c.req.header('X-SHA-256')?.trim().toLowerCase() ?? '';
      if (!/^[0-9a-f]{64}$/.test(hash)) {
        throw new ApiError(
          400,
          'INVALID_HASH',
          '`X-SHA-256` must be the SHA-256 of the file: 64 hex characters',
        );
      }
      requireBlob(c.get('uploader'), hash);
      const length = c.req.header('X-Content-Length')?.trim();
      if (length === undefined || length === '') {
        throw new ApiError(411, 'BAD_HEADER', '`X-Content-Length` (the file size in bytes) is missing');
      }
      if (!/^\d{1,15}$/.test(length)) {
        throw new ApiError(
          400,
          'BAD_HEADER',
          `\`X-Content-Length\` must be a size in bytes, got \`${length}\``,
        );
      }
      if (Number(length) === 0) throw new ApiError(400, 'NO_FILE', 'The file is empty');
      if (Number(length) > maxUploadBytes) {
        throw new ApiError(
          413,
          'FILE_TOO_LARGE',
          `The file is larger than the limit of ${maxUploadBytes} bytes`,
          {
            max_bytes: maxUploadBytes,
          },
        );
      }
      const type = c.req.header('X-Content-Type')?.split(';')[0]?.trim().toLowerCase();
      // Unknown (`application/octet-stream`) or unstated is fine: the type is told from the bytes.
      if (
        type !== undefined &&
        type !== '' &&
        type !== 'application/octet-stream' &&
        !FILE_FORMATS.some((format) => format.mimeType === type)
      ) {
        throw invalidFormat(
          `\`${type}\` is not a supported type; supported: ${SUPPORTED_FORMATS.join(', ')}`,
          415,
        );
      }
      return c.body(null, 200);
    },
  );
  return app;
}
