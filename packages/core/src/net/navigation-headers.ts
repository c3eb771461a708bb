// How `siegel verify <url>` asks for a page: as a browser's navigation does, so that a site which tells
// browsers and tools apart (`Sec-Fetch-*`, the User-Agent) sends it what it sends readers — and, for
// `--check-cloaking`, as a plain client too. Event files and relays are fetched as before (a plain client).
import { isLoopbackHost } from './address-policy.js';

/**
 * The User-Agent of a browser's navigation (`--user-agent` overrides it): Chromium 156 on Linux, as
 * Debian's Chromium 156 sends it (headless Chromium says `HeadlessChrome`; a reader's says `Chrome`).
 * Raise it with Chromium's major version: a site may treat an old browser as a tool.
 */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/** The User-Agent of a plain client: the event fetch, relays' peers, and the page with `--check-cloaking`. */
export const PLAIN_USER_AGENT = 'siegel-verify';

/** The `Accept` of a plain client's page request (what `siegel verify` sent before it asked as a browser). */
export const PLAIN_PAGE_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';

/** The `Accept` of a browser's navigation: Chromium 156's, as measured (see {@link navigationHeaders}). */
export const NAVIGATION_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

/**
 * The request headers besides `Accept` of a browser's navigation to `url` typed into the address bar, as
 * measured (Debian's Chromium 156 loading a page from a loopback server): `Sec-Fetch-Site: none` (no page
 * led there), `Sec-Fetch-Mode: navigate`, `Sec-Fetch-User: ?1`, `Sec-Fetch-Dest: document`,
 * `Upgrade-Insecure-Requests: 1`, the User-Agent and an English `Accept-Language`. With Chromium's
 * User-Agent the low-entropy client hints (`sec-ch-ua*`) come too, as Chromium sends them to https and
 * loopback origins; another User-Agent gets none (they would name another browser than it does).
 * `Accept-Encoding` stays the client's (`gzip, deflate, br`: Chromium adds `zstd`).
 *
 * @example
 * ```ts
 * await client.get(url, { maxBytes, accept: NAVIGATION_ACCEPT, headers: navigationHeaders(url) });
 * ```
 */
export function navigationHeaders(url: URL, userAgent = BROWSER_USER_AGENT): Record<string, string> {
  const hints: Record<string, string> =
    userAgent === BROWSER_USER_AGENT && (url.protocol === 'https:' || isLoopbackHost(url.hostname))
      ? {
          'sec-ch-ua': '"Not:A-Brand";v="8", "Chromium";v="156"',
          'sec-ch-ua-mobile': '?0',
          'sec-ch-ua-platform': '"Linux"',
        }
      : {};
  return {
    ...hints,
    'upgrade-insecure-requests': '1',
    'user-agent': userAgent,
    'sec-fetch-site': 'none',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-user': '?1',
    'sec-fetch-dest': 'document',
    'accept-language': 'en-US,en;q=0.9',
  };
}
