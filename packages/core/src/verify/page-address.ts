// When two addresses name the same page (used by rules.ts for the event's `url` and `fallback` tags, and
// exported through `@siegel/core/rules`): one normal form every way of serving a file reduces to. Separate
// from the judging because it is a question about URLs alone, asked outside a verdict too. Pure, like
// rules.ts: no Node built-ins.

/**
 * An address in the one form every way of serving a file reduces to: origin with default ports dropped,
 * path with percent-encoding normalised (`%7e` ≡ `~`, `ü` ≡ `%C3%BC`), a trailing `index.html` dropped and
 * `/p.html` ≡ `/p` (hosts and `cleanUrls` serve both); query and fragment ignored. `undefined` when not a URL.
 */
export function normalizeAddress(address: string): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  const segments = url.pathname.split('/').map((segment) => {
    try {
      return encodeURIComponent(decodeURIComponent(segment));
    } catch {
      return segment;
    }
  });
  let path = segments.join('/');
  path = path.replace(/\/index\.html?$/i, '/').replace(/\.html?$/i, '');
  return `${url.origin}${path}`;
}

/** Whether `a` and `b` name the same page by {@link normalizeAddress}. */
export function isSameAddress(a: string, b: string): boolean {
  const left = normalizeAddress(a);
  return left !== undefined && left === normalizeAddress(b);
}
