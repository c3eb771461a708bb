import { type Context, Hono } from 'hono';
import { ApiError } from '../api-error.js';
import type { CheckedRecord, RecordChecker } from '../checked-records.js';
import { describeRecord } from '../describe-record.js';
import { PAGE_STYLE, pageText, renderEventPage } from '../event-page.js';
import { CONTENT_TYPES, contentTypeOf, FILE_FORMATS } from '../metadata/formats.js';
import { inlineStyleCsp, UPLOAD_CSP } from '../middleware/security-headers.js';
import { fileUrls, verifyApiUrl, verifyPageUrl } from '../public-urls.js';
import { type FileStorage, isStorageKey } from '../storage/file-storage.js';
import { hashBytes } from '../storage/stored-file-hashes.js';

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
}

/**
 * Serves what the service stores, for when `CDN_URL` is the service itself (the default):
 * `/documents/{hash}.{ext}`, `/{hash}` and `/{hash}.{ext}` (Blossom BUD-01), and the event pages
 * `/events/{hash}/` (`index.html`) and `/events/{hash}/index.json`. Uploads are served with a sandboxing CSP.
 *
 * Nothing is served that its hash or its signed event does not back: a file's bytes are hashed as they are
 * about to be sent (the very bytes in memory), and bytes whose SHA-256 is not the hash are refused with 410
 * `FILE_ALTERED` — none of them sent. `/{hash}` reads the file the signed event names
 * (`documents/{hash}.{extension of its m tag}`), never the stored `file_key` as such. Event pages are
 * rendered from the record as its signed event states it, with the text of a text file only when its bytes
 * match the hash; a record whose event no longer verifies (id, signature, `x` tag) gets 410 `RECORD_ALTERED`.
 */
export function createFileRoutes(options: FileRoutesOptions): Hono {
  const { storage, checker, baseUrl, cdnUrl, redirect } = options;
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

  /** Send `data` if its SHA-256 is `hash`, else 410 with nothing of it. */
  const serveFile = async (c: Context, hash: string, data: Uint8Array<ArrayBuffer>, type: string) => {
    const actual = await hashBytes(data);
    if (actual !== hash) {
      return fileAltered(c, hash, `no longer matches its hash (its bytes hash to \`${actual}\`)`);
    }
    return c.body(data, 200, {
      'Content-Type': type,
      // Explicit, so a HEAD (which Hono answers from this GET route, body dropped) still tells the size.
      'Content-Length': String(data.byteLength),
      'Content-Security-Policy': UPLOAD_CSP,
      'Cache-Control': IMMUTABLE,
      'Access-Control-Allow-Origin': '*',
    });
  };

  app.get('/documents/:name{[0-9a-f]{64}\\.[a-z]{2,4}}', async (c) => {
    const name = c.req.param('name') ?? '';
    const extension = name.split('.')[1] ?? '';
    const data = CONTENT_TYPES[extension] === undefined ? undefined : await storage.get(`documents/${name}`);
    const type = data === undefined ? undefined : contentTypeOf(extension, data);
    if (data === undefined || type === undefined) throw notFound();
    return serveFile(c, name.slice(0, 64), data, type);
  });

  /** The checked record of `hash` whose event still verifies, or the answer refusing it. */
  const readEventRecord = async (
    c: Context,
    hash: string,
  ): Promise<{ checked: CheckedRecord } | { refusal: Response }> => {
    const checked = await checker.findByHash(hash);
    if (checked === undefined) throw notFound();
    const { checks, reasons } = checked.verdict;
    if (checks.event_id && checks.signature && checks.hash_tag) return { checked };
    const error = new ApiError(
      410,
      'RECORD_ALTERED',
      `The stored event of \`${hash}\` no longer verifies: ${reasons.join(' ')}`,
      { hash, reasons, verify: verifyPageUrl(baseUrl, hash), verify_api: verifyApiUrl(baseUrl, hash) },
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
    const data = isStorageKey(record.fileKey) ? await storage.get(record.fileKey) : undefined;
    if (data === undefined) return fileAltered(c, hash, 'is missing');
    const format = FILE_FORMATS.find((candidate) => candidate.mimeType === record.mimeType);
    const type = format === undefined ? 'application/octet-stream' : contentTypeOf(format.extension, data);
    return serveFile(c, hash, data, type ?? 'application/octet-stream');
  });
  return app;
}
