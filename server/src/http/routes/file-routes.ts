import { CONTENT_TYPES, contentTypeOf, FILE_FORMATS } from '@siegel/formats';
import { type Context, Hono } from 'hono';
import type { CheckedRecord, RecordChecker } from '../../records/checked-records.js';
import { describeRecord } from '../../records/describe-record.js';
import { fileUrls, verifyApiUrl, verifyPageUrl } from '../../records/public-urls.js';
import { type FileStorage, isStorageKey } from '../../storage/file-storage.js';
import { hashBytes, type StoredFileHash } from '../../storage/stored-file-hashes.js';
import { PAGE_STYLE, pageText, renderEventPage } from '../../web/event-page.js';
import { ApiError } from '../api-error.js';
import { DownloadBudget, type DownloadSlot } from '../download-budget.js';
import { BUSY_RETRY_AFTER_SECONDS } from '../middleware/admission.js';
import { inlineStyleCsp, UPLOAD_CSP } from '../middleware/security-headers.js';
import { signAuth } from '../middleware/sign-auth.js';
import { type DownloadConnection, type StoredFileStream, streamStoredFile } from '../stored-file-stream.js';

const EVENT_PAGE_CSP = inlineStyleCsp(PAGE_STYLE);
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Options of {@link createFileRoutes}. */
export interface FileRoutesOptions {
  storage: FileStorage;
  /** Reads and checks records (their event, their fields, their stored file). */
  checker: RecordChecker;
  /** Public address of the service, no trailing slash (the event pages' links). */
  baseUrl: string;
  /** Where files and event pages are served from, no trailing slash. */
  cdnUrl: string;
  /**
   * `FILE_REDIRECT=presigned`: `/{hash}` of a verified record answers 302 to a URL of the store itself
   * (`storage.presignGet`) valid for `seconds`, instead of passing the bytes through the service. Left out,
   * or with a store without `presignGet`: the bytes are proxied.
   */
  redirect?: { seconds: number };
  /** The memory budget every served file is sent within (`MAX_DOWNLOAD_BUFFERED_BYTES`); default 64 MiB. */
  downloads?: DownloadBudget;
  /** Tokens that may read the budget's counters, `GET /api/downloads` (`SIGN_API_TOKENS`); default none. */
  signTokens?: readonly string[];
  /** Where a response cut off is reported (a stored file changed as it was sent); default `console.warn`. */
  warn?: (message: string) => void;
}

/**
 * Serves what the service stores, for when `CDN_URL` is the service itself (the default):
 * `/documents/{hash}.{ext}`, `/{hash}` and `/{hash}.{ext}` (Blossom BUD-01), and the event pages
 * `/events/{hash}/` (`index.html`) and `/events/{hash}/index.json`. Uploads are served with a sandboxing CSP.
 *
 * Nothing is served that its hash or its signed event does not back. A file is sent only when its check
 * (its digest, made once per version of the file: {@link StoredFileHashes}, reused while the store's stamp
 * holds) is of bytes whose SHA-256 is the hash; otherwise 410 `FILE_ALTERED` with none of it. It is then
 * streamed from the store within the download budget ({@link DownloadBudget}: a download that finds no room
 * waits, then gets 503 `SERVER_BUSY`) and hashed again on the way out: bytes that changed after the check
 * cut the response off before its last chunk ({@link streamStoredFile}). `/{hash}` reads the file the signed
 * event names (`documents/{hash}.{extension of its m tag}`), never the stored `file_key` as such. Event pages
 * are rendered from the record as its signed event states it, with the text of a text file only when its
 * bytes match the hash; a record whose event no longer verifies (id, signature, `x` tag) gets 410
 * `RECORD_ALTERED`. `GET /api/downloads` (a sign token) answers the budget's counters.
 */
export function createFileRoutes(options: FileRoutesOptions): Hono {
  const { storage, checker, baseUrl, cdnUrl, redirect } = options;
  const downloads = options.downloads ?? new DownloadBudget();
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const app = new Hono();
  const notFound = () => new ApiError(404, 'NOT_FOUND', 'No such file');
  // 410 answers are not to be kept by caches: an operator who restores the file fixes them at once.
  const gone = (c: Context, error: ApiError) => c.json(error.toJSON(), 410, { 'Cache-Control': 'no-store' });
  const fileAltered = (c: Context, hash: string, why: string) =>
    gone(
      c,
      new ApiError(410, 'FILE_ALTERED', `The stored file of \`${hash}\` ${why}; it is not served`, {
        hash,
        verify: verifyPageUrl(baseUrl, hash),
        verify_api: verifyApiUrl(baseUrl, hash),
      }),
    );

  /**
   * Send the file under `key` if its check (`file`) found bytes whose SHA-256 is `hash`, else 410 with
   * nothing of it; `typeOf` tells the `Content-Type` from its first bytes.
   */
  const serveFile = async (
    c: Context,
    hash: string,
    key: string,
    file: StoredFileHash,
    typeOf: (head: Uint8Array) => string,
  ) => {
    const { digest } = file;
    if (digest === undefined) {
      if (file.error !== undefined)
        throw new Error(`The stored file \`${key}\` cannot be read: ${file.error}`);
      return fileAltered(c, hash, 'is missing');
    }
    if (digest.sha256 !== hash) {
      return fileAltered(c, hash, `no longer matches its hash (its bytes hash to \`${digest.sha256}\`)`);
    }
    let slot: DownloadSlot;
    try {
      slot = await downloads.admit(digest.size, c.req.raw.signal);
    } catch (error) {
      if (error instanceof ApiError) c.header('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      throw error;
    }
    let opened: StoredFileStream | undefined;
    try {
      opened = await streamStoredFile(storage, key, digest, {
        slot,
        // Node's response under @hono/node-server (absent in `app.request()` tests).
        connection: (c.env as { outgoing?: DownloadConnection } | undefined)?.outgoing,
        signal: c.req.raw.signal,
        onCutOff: warn,
      });
    } catch (error) {
      slot.release();
      throw error;
    }
    if (opened === undefined) {
      slot.release();
      return fileAltered(c, hash, 'is missing');
    }
    const headers = {
      'Content-Type': typeOf(opened.head),
      // Explicit, so a HEAD still tells the size; a response cut off is then visibly short of it.
      'Content-Length': String(digest.size),
      'Content-Security-Policy': UPLOAD_CSP,
      'Cache-Control': IMMUTABLE,
      'Access-Control-Allow-Origin': '*',
    };
    // Hono answers a HEAD from this GET route and drops the body without reading or cancelling it.
    if (c.req.method === 'HEAD') {
      await opened.body.cancel();
      return c.body(null, 200, headers);
    }
    return c.body(opened.body, 200, headers);
  };

  app.get('/api/downloads', signAuth(options.signTokens ?? []), (c) => {
    const usage = downloads.usage;
    return c.json(
      {
        downloads: usage.downloads,
        waiting: usage.waiting,
        reserved_bytes: usage.reservedBytes,
        buffered_bytes: usage.bufferedBytes,
        peak_buffered_bytes: usage.peakBufferedBytes,
        max_buffered_bytes: usage.maxBufferedBytes,
        refused: usage.refused,
        cut_off: usage.cutOff,
      },
      200,
      { 'Cache-Control': 'no-store' },
    );
  });

  app.get('/documents/:name{[0-9a-f]{64}\\.[a-z]{2,4}}', async (c) => {
    const name = c.req.param('name') ?? '';
    const extension = name.split('.')[1] ?? '';
    if (CONTENT_TYPES[extension] === undefined) throw notFound();
    const key = `documents/${name}`;
    const file = await checker.hashes.hashOf(key);
    if (file.digest === undefined && file.error === undefined) throw notFound();
    return serveFile(
      c,
      name.slice(0, 64),
      key,
      file,
      (head) => contentTypeOf(extension, head) ?? 'application/octet-stream',
    );
  });

  /** The checked record of `hash` whose event still verifies, or the answer refusing it. */
  const readEventRecord = async (
    c: Context,
    hash: string,
  ): Promise<{ checked: CheckedRecord } | { refusal: Response }> => {
    const checked = await checker.findByHash(hash);
    if (checked === undefined) throw notFound();
    const { checks, reasons, verdict, problems } = checked.verdict;
    if (checks.event_id && checks.signature && checks.hash_tag) return { checked };
    const error = new ApiError(
      410,
      'RECORD_ALTERED',
      `The stored event of \`${hash}\` no longer verifies: ${reasons.join(' ')}`,
      {
        hash,
        reasons,
        verdict,
        problems,
        verify: verifyPageUrl(baseUrl, hash),
        verify_api: verifyApiUrl(baseUrl, hash),
      },
    );
    return { refusal: gone(c, error) };
  };

  app.get('/events/:hash{[0-9a-f]{64}}', (c) => c.redirect(`/events/${c.req.param('hash')}/`, 301));
  for (const path of ['/events/:hash{[0-9a-f]{64}}/', '/events/:hash{[0-9a-f]{64}}/index.html']) {
    app.get(path, async (c) => {
      const hash = c.req.param('hash') ?? '';
      const read = await readEventRecord(c, hash);
      if ('refusal' in read) return read.refusal;
      const { record } = read.checked;
      let text: string | undefined;
      if (record.fileType === 'text') {
        const bytes = await storage.get(record.fileKey);
        if (bytes !== undefined && (await hashBytes(bytes)) === hash) text = pageText(bytes);
      }
      const html = await renderEventPage(record, fileUrls(record, baseUrl, cdnUrl), baseUrl, text);
      return c.body(html, 200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': EVENT_PAGE_CSP,
        'Cache-Control': 'public, max-age=300',
      });
    });
  }
  app.get('/events/:hash{[0-9a-f]{64}}/index.json', async (c) => {
    const hash = c.req.param('hash') ?? '';
    const read = await readEventRecord(c, hash);
    if ('refusal' in read) return read.refusal;
    const { record } = read.checked;
    return c.body(JSON.stringify(describeRecord(record, fileUrls(record, baseUrl, cdnUrl)), null, 2), 200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      'Access-Control-Allow-Origin': '*',
    });
  });

  app.get('/:blob{[0-9a-f]{64}(\\.[a-z0-9]{1,10})?}', async (c) => {
    const hash = (c.req.param('blob') ?? '').slice(0, 64);
    let checked = await checker.findByHash(hash);
    if (checked === undefined) throw notFound();
    if (redirect !== undefined && storage.presignGet !== undefined && isStorageKey(checked.record.fileKey)) {
      // The bytes will not pass through here to be hashed: ask the store for the file's stamp now (one
      // `HEAD`), so the check below is of the object as it is, not as it was up to `S3_STAMP_MS` ago.
      await storage.statVersion?.(checked.record.fileKey);
      checked = await checker.check(checked.stored);
    }
    const { record } = checked;
    // Sent to the store only when the record verifies in full (event, fields, and the stored file's hash,
    // just read by the checker); anything else is answered here as without the redirect (410 and so on).
    if (redirect !== undefined && storage.presignGet !== undefined && checked.verdict.verified) {
      const url = await storage.presignGet(record.fileKey, redirect.seconds);
      // Not cached: the URL expires, and the record may stop verifying.
      c.header('Cache-Control', 'no-store');
      return c.redirect(url, 302);
    }
    // A key the event does not determine (its `m` tag is no format of this service) is the stored one.
    if (!isStorageKey(record.fileKey)) return fileAltered(c, hash, 'is missing');
    const format = FILE_FORMATS.find((candidate) => candidate.mimeType === record.mimeType);
    return serveFile(c, hash, record.fileKey, checked.file, (head) =>
      format === undefined
        ? 'application/octet-stream'
        : (contentTypeOf(format.extension, head) ?? 'application/octet-stream'),
    );
  });
  return app;
}
