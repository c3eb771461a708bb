import type { PageAtUrl } from '@siegel/core';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { PageChecks } from '../../pages/page-checks.js';
import { PageCheckPage } from '../../web/page-check-result.js';
import { ApiError } from '../api-error.js';
import { answerFor } from '../error-answers.js';
import { HASH_AND_URL } from './verify-routes.js';

/** Options of {@link createPageCheckRoutes}. */
export interface PageCheckRoutesOptions {
  checks: PageChecks;
  /** The rate limit per client of these routes (`VERIFY_URL_RATE_LIMIT`). */
  limiter: MiddlewareHandler;
  /** Public address of the service, named on the page as the one that fetched. */
  baseUrl: string;
}

/** The JSON answer of a check (`GET /api/verify-page`): one page of `siegel verify --json` and the facts. */
export function pageCheckJson(checked: PageAtUrl): Record<string, unknown> {
  return {
    ...checked.page,
    checked_at: new Date(checked.checkedAt).toISOString(),
    coverage: checked.coverage,
    event: checked.event ?? null,
    signer: checked.signer ?? null,
    content: checked.content ?? null,
  };
}

/**
 * Verify by URL: `GET /api/verify-page?url=` (JSON, CORS open) and `GET /verify?url=` (the page; an empty
 * `url` shows its form; without `url` the next `/verify` route answers). Each request counts against the client's rate (`limiter`, 429);
 * the check itself is {@link PageChecks}': one flight per URL, a brief cache, a rate per target host.
 * Refusals answer with the API's codes (`INVALID_URL`, `PAGE_UNAVAILABLE`, `HOST_RATE_LIMITED`,
 * `SERVER_BUSY`, `RATE_LIMITED`, `INVALID_QUERY`), `Retry-After` where waiting helps.
 */
export function createPageCheckRoutes(options: PageCheckRoutesOptions): Hono {
  const { checks, limiter, baseUrl } = options;
  const app = new Hono();

  /** Check `url` for `c`, or the refusal as an `ApiError` with its `Retry-After` set on `c`. */
  const check = async (c: Context, url: string): Promise<PageAtUrl | ApiError> => {
    try {
      if (c.req.query('hash') !== undefined) return HASH_AND_URL;
      await limiter(c, async () => {});
      return await checks.check(url);
    } catch (error) {
      const answer = answerFor(error);
      if (answer === undefined) throw error;
      const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
      return answer;
    }
  };

  app.get('/api/verify-page', async (c) => {
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cache-Control', 'no-store');
    const checked = await check(c, c.req.query('url') ?? '');
    if (checked instanceof ApiError) return c.json(checked.toJSON(), checked.status);
    return c.json(pageCheckJson(checked));
  });

  app.get('/verify', async (c, next) => {
    const url = c.req.query('url');
    if (url === undefined || (url.trim() === '' && c.req.query('hash') !== undefined)) return next();
    // The form alone: nothing asked yet.
    if (url.trim() === '') return c.html(<PageCheckPage server={baseUrl} />);
    c.header('Cache-Control', 'no-store');
    const checked = await check(c, url);
    if (checked instanceof ApiError)
      return c.html(
        <PageCheckPage url={url.slice(0, 2048)} error={checked.message} server={baseUrl} />,
        checked.status,
      );
    return c.html(<PageCheckPage url={url} checked={checked} server={baseUrl} />);
  });
  return app;
}
