// Where a reader is sent to check a page somewhere other than the site: a file server's verify-by-URL
// (`{server}/verify?url={page}`, server/src/http/routes/page-check-routes.tsx answers it) and the browser
// extension (packages/extension), which checks the page as the reader's own browser shows it. The reader's
// mark (mark/siegel-mark.ts) builds its links here and the server's verify-by-URL page points to the same
// extension address, so the two never disagree. No DOM, no Node: bundled into the mark's script.

/** The extension's README in Siegel's repository: where a reader learns to install it. */
export const EXTENSION_README_URL =
  'https://github.com/siegel-dev/siegel/tree/main/packages/extension#readme';

/**
 * An absolute http(s) URL, or `undefined`: nothing else (no `javascript:`, no relative text) becomes a link.
 *
 * @example
 * ```ts
 * httpUrl('javascript:alert(1)'); // undefined
 * ```
 */
export function httpUrl(value: string | null | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The address of `page`'s check on the file server at `server` (its origin and path, a trailing `/` or
 * not): `{server}/verify?url={page}`, the page's fragment dropped.
 *
 * @example
 * ```ts
 * verifyByUrlLink(new URL('https://files.example/'), 'https://blog.example/post/#top').href;
 * // 'https://files.example/verify?url=https%3A%2F%2Fblog.example%2Fpost%2F'
 * ```
 */
export function verifyByUrlLink(server: URL, page: string): URL {
  const target = new URL(page);
  target.hash = '';
  const check = new URL(`${server.origin}${server.pathname.replace(/\/+$/, '')}/verify`);
  check.searchParams.set('url', target.href);
  return check;
}
