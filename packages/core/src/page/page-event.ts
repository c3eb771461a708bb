import type { EventTemplate } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { HEX64 } from '../nostr/crypto.js';
import { siteBaseOf } from './page-loads.js';
import { CURRENT_SPEC } from './parse.js';

/** NIP-94 "file metadata" — the kind of every page event. */
export const PAGE_EVENT_KIND = 1063;

/** Characters that stay as they are in a URL path segment (RFC 3986 `pchar` minus `%`). */
const KEEP_IN_SEGMENT = /%(24|26|2B|2C|3B|3D|3A|40)/g;

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(KEEP_IN_SEGMENT, (escaped) => decodeURIComponent(escaped));
}

/**
 * The absolute URL a page is served at: `site` joined with the page's path in the build output, with
 * directory indexes as `…/path/` and unsafe path characters percent-encoded (UTF-8).
 *
 * @example
 * ```ts
 * pageUrl('https://example.com', 'blog/x/index.html'); // 'https://example.com/blog/x/'
 * pageUrl('https://example.com/', 'about.html');       // 'https://example.com/about.html'
 * pageUrl('https://example.com/docs', 'index.html');   // 'https://example.com/docs/'
 * pageUrl('https://example.com', 'über uns.html');     // 'https://example.com/%C3%BCber%20uns.html'
 * ```
 * @throws {SiegelError} `invalid_options` when `site` is not an absolute http(s) URL.
 */
export function pageUrl(site: string, relativePath: string): string {
  checkSiteUrl(site);
  const base = new URL(site);
  const origin = siteBaseOf(base);
  const segments = relativePath
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  if (segments.at(-1) === 'index.html') segments[segments.length - 1] = '';
  const path = segments.map(encodeSegment).join('/');
  return `${origin}/${path}`;
}

/**
 * The problem with a site (or, `what`, mirror) URL, or `undefined` when it is an absolute http(s) URL: the
 * one wording of this mistake, wherever the URL came from.
 *
 * @example
 * ```ts
 * describeSiteProblem('example.com') // 'The site URL `example.com` is not an absolute URL'
 * ```
 */
export function describeSiteProblem(site: string, what = 'site URL'): string | undefined {
  let url: URL;
  try {
    url = new URL(site);
  } catch {
    return `The ${what} \`${site}\` is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `The ${what} \`${site}\` must start with http:// or https://`;
  return undefined;
}

/**
 * Check a site URL: an absolute http(s) URL. `source` names where it came from (`--site`, `SITE_URL`).
 *
 * @example
 * ```ts
 * checkSiteUrl(values.site, '--site');
 * ```
 * @throws {SiegelError} `invalid_options`, worded by {@link describeSiteProblem}.
 */
export function checkSiteUrl(site: string, source?: string): void {
  const problem = describeSiteProblem(site);
  if (problem) throw new SiegelError('invalid_options', source ? `${problem} (\`${source}\`)` : problem);
}

/** Input of {@link createPageEvent}. */
export interface PageEventInput {
  /** The `siegel-page/2` hash of the page (64 lowercase hex). Required. */
  hash: string;
  /** Absolute URL of the page (see {@link pageUrl}). Required. */
  url: string;
  /**
   * The page's address at each mirror of the site (`pageUrl(mirror, path)`): one NIP-94 `fallback` tag
   * each, after `url`. Verifiers accept the page at `url` or at any of them. Default: none.
   */
  fallbacks?: readonly string[];
  /** Page title; becomes the content and the `alt` tag. Default: none (content falls back to the URL). */
  title?: string;
  /**
   * The base URL the page's `<base href>` sets, absolute (`resolveBaseUrl(href, url)`); becomes the `base`
   * tag, which verifiers compare with the page's base URL. Default: none (the page's links resolve against
   * its own address).
   */
  base?: string;
  /** Meta description; becomes the `summary` tag. Default: none. */
  description?: string;
  /**
   * The address of the site manifest the page belongs to (`35128:<pubkey>:<d>`, `15128:<pubkey>:`): the
   * `a` tag, signed, so the page names its site's manifest. Default: none.
   */
  address?: string | undefined;
  /** Unix seconds. Default: now. */
  createdAt?: number;
}

/**
 * The unsigned NIP-94 (kind 1063) event for a page: content = title (the URL when there is no title),
 * tags `url`, one `fallback` per mirror address (NIP-94: "zero or more fallback file sources in case url
 * fails"), `m` = `text/html`, `x` and `ox` = the hash, `spec` = `siegel-page/2` (the rules the hash was
 * made by, signed with it so that nobody can make a verifier read the page by older rules), plus `base`
 * (the base URL a `<base href>` sets), `summary` and `alt` where present — the shape nostr-tools'
 * `nip94.validateEvent` accepts.
 *
 * @example
 * ```ts
 * const template = createPageEvent({ hash, url: 'https://example.com/blog/x/', title: 'X' });
 * const [event] = await signer.signEvents([template]);
 * ```
 * @throws {SiegelError} `invalid_options` when `hash` is not 64 lowercase hex or `url` is empty.
 */
export function createPageEvent(input: PageEventInput): EventTemplate {
  const { hash, url } = input;
  if (typeof hash !== 'string' || !HEX64.test(hash)) {
    throw new SiegelError(
      'invalid_options',
      `Expected the page hash as 64 lowercase hex characters, got \`${hash}\`.`,
    );
  }
  if (typeof url !== 'string' || url.trim() === '') {
    throw new SiegelError('invalid_options', `Expected an absolute page URL, got \`${url}\`.`);
  }
  const title = input.title?.trim() || undefined;
  const description = input.description?.trim() || undefined;
  const fallbacks = [...new Set((input.fallbacks ?? []).map((fallback) => fallback.trim()))].filter(
    (fallback) => fallback !== '' && fallback !== url,
  );
  const tags: string[][] = [
    ['url', url],
    ...fallbacks.map((fallback) => ['fallback', fallback]),
    ['m', 'text/html'],
    ['x', hash],
    ['ox', hash],
    ['spec', CURRENT_SPEC],
  ];
  const base = input.base?.trim();
  if (base) tags.push(['base', base]);
  if (description) tags.push(['summary', description]);
  if (title) tags.push(['alt', title]);
  if (input.address) tags.push(['a', input.address]);
  return {
    kind: PAGE_EVENT_KIND,
    created_at: input.createdAt ?? Math.floor(Date.now() / 1000),
    tags,
    content: title ?? url,
  };
}

/**
 * Whether `event` carries the title, base URL and manifest address a page event made from `input` would
 * carry (the `alt`, `base` and `a` tags): a signing run keeps a cached event only then, so a page whose
 * `<title>` or `<base href>` changed, or one signed before the site manifest (no `a` tag), is signed again
 * even when its hash did not change.
 *
 * @example
 * ```ts
 * describesPage(cached.event, { title: 'New title' }); // false: the event still has the old `alt`
 * ```
 */
export function describesPage(
  event: { tags: string[][] },
  input: Pick<PageEventInput, 'title' | 'base' | 'address'>,
): boolean {
  const tag = (name: string) => event.tags.find((candidate) => candidate[0] === name)?.[1];
  return (
    tag('alt') === (input.title?.trim() || undefined) &&
    tag('base') === (input.base?.trim() || undefined) &&
    tag('a') === (input.address || undefined)
  );
}
