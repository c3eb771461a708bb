// When two addresses name the same page (used by rules.ts for the event's `url` and `fallback` tags and for
// the reader's referrer, and exported through `@siegel/core/rules`): one normal form every way of serving a file reduces to. Separate
// from the judging because it is a question about URLs alone, asked outside a verdict too. Pure, like
// rules.ts: no Node built-ins.
import { npubEncode } from 'nostr-tools/nip19';
import { manifestPathsFor, NSITE_ROOT_KIND, type SiteManifest } from '../manifest/site-manifest.js';
import { isLoopbackHost } from '../net/address-policy.js';

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

/**
 * Whether `found` is a local preview of the page signed for `signed`: on a loopback host (127.0.0.0/8,
 * `::1`, `localhost`; http or https, any port) at the path `signed` has, as {@link normalizeAddress}
 * compares paths. Only the machine itself serves there, so a page there is its owner's build, not a copy
 * shown to someone else; a private or LAN address is another machine and is not a preview.
 *
 * @example
 * ```ts
 * isLocalPreview('http://127.0.0.1:4321/blog/x/index.html', 'https://example.com/blog/x/'); // true
 * isLocalPreview('http://[::1]:8080/blog/y/', 'https://example.com/blog/x/'); // false: another path
 * isLocalPreview('http://192.168.1.5:4321/blog/x/', 'https://example.com/blog/x/'); // false: the LAN
 * ```
 */
export function isLocalPreview(found: string, signed: string): boolean {
  let url: URL;
  let origin: string;
  try {
    url = new URL(found);
    origin = new URL(signed).origin;
  } catch {
    return false;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isLoopbackHost(url.hostname)) return false;
  return isSameAddress(`${origin}${url.pathname}`, signed);
}

/**
 * Where a reader came from, against the addresses a check is about (the page it fetched, the event's `url`
 * and its `fallback` mirrors): `none` when there is no referrer (or it is not a URL); `same` when it is one
 * of `addresses` by {@link isSameAddress}; `other` otherwise. A referrer that is only an origin
 * (`https://example.com/`: what a link to another origin sends under the default policy,
 * `strict-origin-when-cross-origin`) is compared by origin — a site's home page sends the same form.
 *
 * @example
 * ```ts
 * compareReferrer('https://evil.example/', ['https://example.com/blog/x/']); // 'other'
 * compareReferrer('https://example.com/', ['https://example.com/blog/x/']); // 'same': only an origin
 * compareReferrer('https://example.com/blog/y/', ['https://example.com/blog/x/']); // 'other'
 * compareReferrer('', ['https://example.com/blog/x/']); // 'none'
 * ```
 */
export function compareReferrer(referrer: string, addresses: readonly string[]): 'none' | 'same' | 'other' {
  let from: URL;
  try {
    from = new URL(referrer);
  } catch {
    return 'none';
  }
  if (from.protocol !== 'http:' && from.protocol !== 'https:') return 'none';
  const onlyOrigin = from.pathname === '/' && from.search === '';
  const same = addresses.some((address) => {
    if (!onlyOrigin) return isSameAddress(referrer, address);
    try {
      return new URL(address).origin === from.origin;
    } catch {
      return false;
    }
  });
  return same ? 'same' : 'other';
}

/**
 * The addresses a page event was signed for: its `url`, then its `fallback` tags (the page at each mirror
 * the signer named). A `fallback` counts only beside a `url`: a page event names its own address first
 * (NIP-94). Empty without a `url`.
 *
 * @example
 * ```ts
 * signedAddresses({ tags: [['url', 'https://a.example/x/'], ['fallback', 'https://b.example/x/']] });
 * // ['https://a.example/x/', 'https://b.example/x/']
 * ```
 */
export function signedAddresses(event: { tags: string[][] }): string[] {
  const url = event.tags.find((tag) => tag[0] === 'url')?.[1];
  if (url === undefined) return [];
  const fallbacks = event.tags.filter((tag) => tag[0] === 'fallback' && typeof tag[1] === 'string');
  return [url, ...fallbacks.map((tag) => tag[1] as string)];
}

/** `base` with the origin of `to` in place of `from`'s, when `base` is on `from`'s origin; else `undefined`. */
export function rebaseOrigin(base: string, from: string, to: string): string | undefined {
  try {
    const url = new URL(base);
    const source = new URL(from);
    if (url.origin !== source.origin) return undefined;
    const target = new URL(to);
    return new URL(`${url.pathname}${url.search}`, target.origin).href;
  } catch {
    return undefined;
  }
}

/**
 * The host label an nsite gateway (NIP-5A) serves a site under: the key's `npub` for its root site (kind
 * 15128), the key in base36 (50 characters) followed by the `d` tag for a named site (kind 35128).
 *
 * @example
 * ```ts
 * nsiteLabel({ kind: 35128, pubkey: 'ab…', d: 'blog-1x2y' }); // '3k…blog-1x2y'
 * ```
 */
export function nsiteLabel(manifest: Pick<SiteManifest, 'kind' | 'pubkey' | 'd'>): string {
  if (manifest.kind === NSITE_ROOT_KIND) return npubEncode(manifest.pubkey);
  return `${BigInt(`0x${manifest.pubkey}`).toString(36).padStart(50, '0')}${manifest.d ?? ''}`;
}

/**
 * Whether `address` is the page of `event` served by an nsite gateway: its host's first label is the
 * site's ({@link nsiteLabel}) and `manifest` — the newest manifest of the event's key, which the gateway
 * serves from — lists that event at the path the gateway maps the address to (`/x/` → `/x/index.html`).
 * The third accepted address, beside the event's `url` and its `fallback` mirrors.
 *
 * @example
 * ```ts
 * isGatewayAddress(`https://${nsiteLabel(manifest)}.nsite.example/blog/x/`, event, manifest); // true
 * ```
 */
export function isGatewayAddress(
  address: string,
  event: { id: string; pubkey: string },
  manifest: SiteManifest | undefined,
): boolean {
  if (manifest === undefined || manifest.pubkey !== event.pubkey) return false;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.hostname.split('.')[0] !== nsiteLabel(manifest).toLowerCase()) return false;
  return manifestPathsFor(url.href, url.origin).some(
    (path) => manifest.pages.get(path)?.eventId === event.id,
  );
}
