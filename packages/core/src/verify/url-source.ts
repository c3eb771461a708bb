import { SiegelError } from '../errors.js';
import type { ConnectPolicy } from '../net/connect-policy.js';
import { NAVIGATION_ACCEPT, navigationHeaders, PLAIN_PAGE_ACCEPT } from '../net/navigation-headers.js';
import {
  SITE_CLIENT_DEFAULTS,
  SiteClient,
  type SiteClientWording,
  type SiteGetOptions,
} from '../net/site-client.js';
import { HEX64 } from '../nostr/crypto.js';
import { readPageForCheck } from '../page/analyze.js';
import { resolveBaseUrl } from '../page/page-facts.js';
import { MAX_EVENT_BYTES, MissingEvent, type PageBytes, type Source } from './site-source.js';

/** How the client's messages name its limits when a policy's user (not the CLI) runs the check. */
const POLICY_WORDING: Partial<SiteClientWording> = {
  whole: 'the check',
  redirect: 'not allowed here',
  totalTimeout: 'the time for the whole check',
  requestTimeout: 'the time for one request',
  maxBytes: 'the page limit',
};

/** What {@link urlSource} takes from `VerifySiteOptions` (see there for each default). */
export interface UrlSourceOptions {
  maxPages?: number;
  allowRedirectsTo?: string[];
  maxRedirects?: number;
  requestTimeoutMs?: number;
  totalTimeoutMs?: number;
  userAgent?: string;
  checkCloaking?: boolean;
  policy?: ConnectPolicy;
}

/**
 * A live site, crawled from `start` (same origin, under its path, at most `maxPages` pages) by a careful
 * client (`net/`): bounded responses and time, redirects only within the site's origin, no private
 * addresses but the site's own. Each page is asked for as a browser's navigation asks
 * (net/navigation-headers.ts) and judged at the URL it was fetched from; with `checkCloaking`, it is asked
 * for again as a plain client, for the rule book to compare (`page.cloaked`).
 */
export function urlSource(
  start: string,
  options: UrlSourceOptions,
  limits: { maxPageBytes: number; selector: string },
): Source {
  const { maxPageBytes, selector } = limits;
  const root = new URL(start);
  const scope = root.pathname.endsWith('/') ? root.pathname : root.pathname.replace(/[^/]*$/, '');
  const maxPages = options.maxPages ?? 1000;
  const client = new SiteClient({
    site: root,
    // Under a policy the policy bounds every connection, redirects' targets included: any origin may be
    // followed (`http://` → `https://`, a bare domain → `www.`), each judged by it. Its messages name no
    // option of the CLI's, which a policy's user (a server) does not have.
    allowRedirectsTo: options.policy ? 'any' : (options.allowRedirectsTo ?? []),
    ...(options.policy ? { wording: POLICY_WORDING } : {}),
    maxRedirects: options.maxRedirects ?? SITE_CLIENT_DEFAULTS.maxRedirects,
    requestTimeoutMs: options.requestTimeoutMs ?? SITE_CLIENT_DEFAULTS.requestTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? SITE_CLIENT_DEFAULTS.totalTimeoutMs,
    ...(options.policy ? { policy: options.policy } : {}),
  });
  const isHtml = (type: string | undefined) => (type ?? '').includes('text/html');
  const pageRequest = (url: URL, plain: boolean): SiteGetOptions => ({
    maxBytes: maxPageBytes,
    wantBody: (headers) => isHtml(headers['content-type']),
    ...(plain
      ? { accept: PLAIN_PAGE_ACCEPT }
      : { accept: NAVIGATION_ACCEPT, headers: navigationHeaders(url, options.userAgent) }),
  });
  /** The page as a plain client gets it, or why it could not be read: then the two were not compared. */
  const readPlain = async (url: URL): Promise<PageBytes | string> => {
    const failed = 'as a plain client (`--check-cloaking`), so the two readings were not compared';
    try {
      const response = await client.get(url, pageRequest(url, true));
      if (response.status < 200 || response.status >= 300)
        return `\`${url.href}\` answered HTTP ${response.status} ${failed}`;
      const { body } = response;
      if (!body) return `\`${url.href}\` sent no HTML ${failed}`;
      const contentType = response.headers['content-type'];
      return {
        bytes: () => body,
        reading: readPageForCheck(body, selector, { contentType }),
        contentType,
      };
    } catch (error) {
      if (client.expired) throw client.expired;
      return `${(error as Error).message} ${failed}`;
    }
  };
  return {
    async *pages() {
      const queue: URL[] = [root];
      const seen = new Set<string>([root.href]);
      let visited = 0;
      while (queue.length > 0 && visited < maxPages) {
        const url = queue.shift() as URL;
        let response: Awaited<ReturnType<SiteClient['get']>>;
        try {
          response = await client.get(url, pageRequest(url, false));
        } catch (error) {
          // The start page and the check's time are the run's; any other page fails alone.
          if (visited === 0 || client.expired) throw client.expired ?? error;
          visited++;
          const problem = (error as Error).message;
          yield {
            name: url.href,
            problem,
            code: /more than/.test(problem) ? 'page.too_large' : 'page.unavailable',
          };
          continue;
        }
        if (response.status < 200 || response.status >= 300) {
          if (visited === 0)
            throw new SiegelError('io_error', `\`${url.href}\` answered HTTP ${response.status}`);
          continue;
        }
        if (!response.body) continue; // not HTML
        visited++;
        const html = response.body.toString('utf8');
        // The `Content-Type` charset outranks the page's own `<meta>`, as in a browser.
        const contentType = response.headers['content-type'];
        const body = response.body;
        const reading = readPageForCheck(response.body, selector, { contentType });
        const plain = options.checkCloaking ? await readPlain(url) : undefined;
        if (typeof plain === 'string')
          yield {
            name: response.url.href,
            problem: plain,
            code: /more than/.test(plain) ? 'page.too_large' : 'page.unavailable',
          };
        else
          yield {
            name: response.url.href,
            bytes: () => body,
            reading,
            contentType,
            address: response.url.href,
            ...(plain ? { plain } : {}),
          };
        // Links resolve against the page's base URL, as in a browser (a Hugo page's `<base href>`).
        const base = resolveBaseUrl(reading.baseHref, response.url.href) ?? response.url;
        for (const match of html.matchAll(/\bhref\s*=\s*["']?([^"'\s>]+)/gi)) {
          let link: URL;
          try {
            link = new URL((match[1] as string).replace(/&amp;/g, '&'), base);
          } catch {
            continue;
          }
          link.hash = '';
          link.search = '';
          if (link.origin !== root.origin || !link.pathname.startsWith(scope)) continue;
          if (link.pathname.startsWith(`${scope}verify/`)) continue;
          if (/\.(?!html?$)[a-z0-9]{1,5}$/i.test(link.pathname)) continue; // assets
          if (seen.has(link.href)) continue;
          seen.add(link.href);
          queue.push(link);
        }
      }
    },
    async readSiteFile(path, page, siteUrl) {
      // The site's path (its manifest's `url`) on the origin being checked: production, a mirror, a preview.
      let base = scope;
      try {
        if (siteUrl !== undefined) base = new URL(siteUrl).pathname;
      } catch {}
      const url = new URL(`${base.replace(/\/+$/, '')}${encodeURI(path)}`, new URL(page));
      const response = await client.get(url, { maxBytes: maxPageBytes, accept: '*/*' });
      if (response.status < 200 || response.status >= 300 || !response.body)
        throw new Error(`\`${url.href}\` answered HTTP ${response.status}`);
      return response.body;
    },
    async loadEvent(id, verifyUrl, page) {
      if (!HEX64.test(id)) throw new Error(`event id \`${id}\` is not 64 hex characters`);
      // The block's link may name the production host: load the event from the host being checked.
      let path = `${scope}verify/${id}`;
      try {
        const linked = new URL(verifyUrl ?? '').pathname.replace(/\/+$/, '');
        if (linked.endsWith(`/verify/${id}`)) path = linked;
      } catch {}
      const url = new URL(`${path}.json`, new URL(page));
      let response: Awaited<ReturnType<SiteClient['get']>>;
      try {
        response = await client.get(url, { maxBytes: MAX_EVENT_BYTES, accept: 'application/json' });
      } catch (error) {
        // Not loaded (network, time, size): an outage — the event may still be on a relay.
        throw new MissingEvent(`event \`${url.href}\` could not be loaded: ${(error as Error).message}`);
      }
      // 404/410 or a server error: not there now, which is not the same as altered; relays are asked next.
      if (response.status < 200 || response.status >= 300 || !response.body)
        throw new MissingEvent(`event \`${url.href}\` answered HTTP ${response.status}`);
      try {
        return {
          event: JSON.parse(response.body.toString('utf8')) as unknown,
          from: url.href,
        };
      } catch (error) {
        throw new Error(`event \`${url.href}\` is not valid: ${(error as Error).message}`);
      }
    },
    expired: () => client.expired,
  };
}
