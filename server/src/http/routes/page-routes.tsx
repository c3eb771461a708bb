import { Hono } from 'hono';
import type { RecordChecker } from '../../records/checked-records.js';
import { fileUrls } from '../../records/public-urls.js';
import { readBrowserScript } from '../../web/browser-scripts.js';
import { Layout } from '../../web/layout.js';
import { SignPage } from '../../web/sign-page.js';
import { SITE_STYLE } from '../../web/site-style.js';
import { VerifyPage } from '../../web/verify-page.js';
import { NotFoundResult, VerifyResult } from '../../web/verify-result.js';
import { readHashParam } from './verify-routes.js';

/** Options of {@link createPageRoutes}. */
export interface PageRoutesOptions {
  /** Reads and checks records (their event, their fields, their stored file). */
  checker: RecordChecker;
  baseUrl: string;
  cdnUrl: string;
  maxUploadBytes: number;
  /** The relays that have taken an event so far (default `[]`). */
  publishedTo?: (eventId: string) => Promise<string[]>;
}

/**
 * The web pages: `/tools/sign`, `/verify` (`?hash=`), `/verify/{event id}`, and their assets.
 *
 * @throws {Error} when the pages' bundled scripts are missing (see {@link readBrowserScript}).
 */
export function createPageRoutes(options: PageRoutesOptions): Hono {
  const { checker, baseUrl, cdnUrl } = options;
  const app = new Hono();
  const asset = (body: string, type: string) => () =>
    new Response(body, { headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=300' } });
  app.get('/assets/siegel.css', asset(SITE_STYLE, 'text/css; charset=utf-8'));
  app.get('/assets/sign.js', asset(readBrowserScript('sign'), 'text/javascript; charset=utf-8'));
  app.get('/assets/verify.js', asset(readBrowserScript('verify'), 'text/javascript; charset=utf-8'));

  // Browsers ask every origin for /favicon.ico; a 404 there is an error in the console of every page.
  app.get(
    '/favicon.ico',
    () => new Response(null, { status: 204, headers: { 'Cache-Control': 'public, max-age=86400' } }),
  );
  app.get('/', (c) => c.redirect('/verify'));
  app.get('/tools/sign', (c) => c.html(<SignPage maxUploadBytes={options.maxUploadBytes} />));

  app.get('/verify', async (c) => {
    const raw = c.req.query('hash');
    if (raw === undefined || raw.trim() === '') return c.html(<VerifyPage />);
    const hash = readHashParam(raw);
    if (hash === undefined) {
      return c.html(
        <VerifyPage hash={raw.slice(0, 100)} error="A SHA-256 hash is 64 hexadecimal characters." />,
        400,
      );
    }
    const checked = await checker.findByHash(hash);
    if (checked === undefined) {
      return c.html(
        <VerifyPage hash={hash}>
          <NotFoundResult hash={hash} />
        </VerifyPage>,
        404,
      );
    }
    const { record, verdict } = checked;
    return c.html(
      <VerifyPage hash={hash}>
        <VerifyResult
          record={record}
          verdict={verdict}
          urls={fileUrls(record, baseUrl, cdnUrl)}
          publishedTo={(await options.publishedTo?.(record.eventId)) ?? []}
        />
      </VerifyPage>,
    );
  });

  app.get('/verify/:eventId{[0-9a-f]{64}}', async (c) => {
    const checked = await checker.findByEventId(c.req.param('eventId') ?? '');
    if (checked === undefined) {
      return c.html(
        <Layout title="Unknown event">
          <h1>Unknown event</h1>
          <p>No file signed here has this event id.</p>
        </Layout>,
        404,
      );
    }
    const { record, verdict } = checked;
    return c.html(
      <Layout title={`Verify “${record.title ?? record.fileName}”`}>
        <h1>{`“${record.title ?? record.fileName}”`}</h1>
        <VerifyResult
          record={record}
          verdict={verdict}
          urls={fileUrls(record, baseUrl, cdnUrl)}
          publishedTo={(await options.publishedTo?.(record.eventId)) ?? []}
        />
      </Layout>,
    );
  });
  return app;
}
