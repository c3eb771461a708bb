import { Hono } from 'hono';
import { ApiError } from '../api-error.js';
import { PAGE_STYLE } from '../event-page.js';
import { CONTENT_TYPES } from '../metadata/formats.js';
import { inlineStyleCsp, UPLOAD_CSP } from '../middleware/security-headers.js';
import { eventPageKey } from '../public-urls.js';
import type { FileStorage } from '../storage/file-storage.js';
import type { RecordStore } from '../storage/record-store.js';

const EVENT_PAGE_CSP = inlineStyleCsp(PAGE_STYLE);
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves what the service stores, for when `CDN_URL` is the service itself (the default):
 * `/documents/{hash}.{ext}`, `/{hash}` and `/{hash}.{ext}` (Blossom BUD-01), and the event pages
 * `/events/{hash}/` (`index.html`) and `/events/{hash}/index.json`. Uploads are served with a sandboxing CSP.
 */
export function createFileRoutes(options: { storage: FileStorage; records: RecordStore }): Hono {
  const { storage, records } = options;
  const app = new Hono();
  const notFound = () => new ApiError(404, 'NOT_FOUND', 'No such file');

  app.get('/documents/:name{[0-9a-f]{64}\\.[a-z]{2,4}}', async (c) => {
    const name = c.req.param('name') ?? '';
    const data = await storage.get(`documents/${name}`);
    const type = CONTENT_TYPES[name.split('.')[1] ?? ''];
    if (data === undefined || type === undefined) throw notFound();
    return c.body(data, 200, {
      'Content-Type': type,
      'Content-Length': String(data.byteLength),
      'Content-Security-Policy': UPLOAD_CSP,
      'Cache-Control': IMMUTABLE,
      'Access-Control-Allow-Origin': '*',
    });
  });

  app.get('/events/:hash{[0-9a-f]{64}}', (c) => c.redirect(`/events/${c.req.param('hash')}/`, 301));
  for (const path of ['/events/:hash{[0-9a-f]{64}}/', '/events/:hash{[0-9a-f]{64}}/index.html']) {
    app.get(path, async (c) => {
      const data = await storage.get(eventPageKey(c.req.param('hash') ?? '', 'index.html'));
      if (data === undefined) throw notFound();
      return c.body(data, 200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': EVENT_PAGE_CSP,
        'Cache-Control': 'public, max-age=300',
      });
    });
  }
  app.get('/events/:hash{[0-9a-f]{64}}/index.json', async (c) => {
    const data = await storage.get(eventPageKey(c.req.param('hash') ?? '', 'index.json'));
    if (data === undefined) throw notFound();
    return c.body(data, 200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
      'Access-Control-Allow-Origin': '*',
    });
  });

  app.get('/:blob{[0-9a-f]{64}(\\.[a-z0-9]{1,10})?}', async (c) => {
    const hash = (c.req.param('blob') ?? '').slice(0, 64);
    const record = await records.findByHash(hash);
    const data = record === undefined ? undefined : await storage.get(record.fileKey);
    if (record === undefined || data === undefined) throw notFound();
    return c.body(data, 200, {
      'Content-Type': record.mimeType.startsWith('text/')
        ? `${record.mimeType}; charset=utf-8`
        : record.mimeType,
      // Explicit, so a HEAD (which Hono answers from this GET route, body dropped) still tells the size.
      'Content-Length': String(data.byteLength),
      'Content-Security-Policy': UPLOAD_CSP,
      'Cache-Control': IMMUTABLE,
      'Access-Control-Allow-Origin': '*',
    });
  });
  return app;
}
