// manifest/ owns the site manifest (NIP-5A, docs/site-manifest.md): the one signed event per signing run
// that lists every file of the output with its SHA-256, names the page event signed at each page's path and
// pins what each page loads. Here: its kinds, the relay limits it is laid out for, the site id (`d`), the
// address page events name it by (`a` tag), its tags in both layouts (inline, or the full list in a blob
// file whose hash the event carries) and how a verifier reads them back. Pure: no Node built-ins, bundled
// into the browser verify script; the signing run (pipeline/) writes and publishes what this file lays out.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { NostrEvent } from 'nostr-tools/core';
import { RELAY_LIMITS } from '../nostr/relays.js';
import { siteBaseOf, sitePathOf } from '../page/page-loads.js';

export { RELAY_LIMITS };

/** NIP-5A root site: one per key, no `d` tag (replaceable). */
export const NSITE_ROOT_KIND = 15128;
/** NIP-5A named site: `d` = the site id (addressable). */
export const NSITE_NAMED_KIND = 35128;

/** The inline layout is used while the signed event stays this far under {@link RELAY_LIMITS}. */
export const INLINE_LIMITS = { maxEventBytes: 60_000, maxTags: 1_900 } as const;

/** The `siegel` member of a blob file: the format of its tag list. */
export const MANIFEST_BLOB_FORMAT = 'site-manifest/1';

/** Where a signing run keeps the newest signed manifest event, relative to the output directory. */
export const MANIFEST_FILE = 'verify/manifest.json';

/** A page signed in the manifest: its path, the page event signed there and what the page loads. */
export interface ManifestPage {
  path: string;
  eventId: string;
  loads: string[];
}

/** A manifest event as a verifier reads it. */
export interface SiteManifest {
  kind: 15128 | 35128;
  pubkey: string;
  /** The site id (`d` tag) of a named site; `undefined` for a root site. */
  d: string | undefined;
  /** The site URL (`url` tag, Siegel's extra), as written; `undefined` when the event has none. */
  siteUrl: string | undefined;
  createdAt: number;
  eventId: string;
  /** '/abs/path.ext' → sha256 hex. In layout blob, only the blob file until the blob's tags are given. */
  files: Map<string, string>;
  /** Path → the signed page there. */
  pages: Map<string, ManifestPage>;
  /** Page event id → the signed page. */
  pagesByEvent: Map<string, ManifestPage>;
  servers: string[];
  /** Layout blob: the blob the event names (its hash and byte length); `undefined` for layout inline. */
  blob: { sha256: string; bytes: number } | undefined;
}

const HEX64 = /^[0-9a-f]{64}$/;
const SITE_ID = /^[a-z0-9-]{1,13}$/;

/**
 * Whether `value` is a `d` NIP-5A allows for a named site: 1–13 of `[a-z0-9-]`, not ending in `-`.
 *
 * @example
 * ```ts
 * isSiteId('blog-1x9z'); // true
 * isSiteId('Blog');      // false
 * ```
 */
export function isSiteId(value: string): boolean {
  return SITE_ID.test(value) && !value.endsWith('-');
}

/**
 * The default site id of a site URL: a slug — the host's first label that is not `www` for a site at an
 * origin's root, the last path segment for a site under a path — lowercased, each run outside `[a-z0-9]`
 * made `-`, trimmed, cut to 8 characters (`site` when nothing is left), then `-` and 4 base-36 digits of the
 * SHA-256 of the site's base, so two sites of one key differ even where their slugs agree. The 4 digits are
 * the hash's value modulo 36⁴ (its lowest digits: the leading digit of a 256-bit number is skewed).
 *
 * @example
 * ```ts
 * deriveSiteId('https://www.example.com/');      // 'example-' + 4 digits
 * deriveSiteId('https://user.github.io/proj-a/'); // 'proj-a-' + 4 digits
 * ```
 */
export function deriveSiteId(siteUrl: string): string {
  const url = new URL(siteUrl);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  let raw = segments.at(-1) ?? url.hostname.split('.').find((label) => label !== 'www') ?? '';
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // Keep it as written: the slug only has to be stable.
  }
  const slug =
    raw
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 8)
      .replace(/-+$/, '') || 'site';
  const digest = bytesToHex(sha256(new TextEncoder().encode(siteBaseOf(url))));
  const h = (BigInt(`0x${digest}`) % 36n ** 4n).toString(36).padStart(4, '0');
  return `${slug}-${h}`;
}

/**
 * The address page events name their manifest by (NIP-01 `a`): `<kind>:<pubkey>:<d>`, `d` empty for a root site.
 *
 * @example
 * ```ts
 * manifestAddress(35128, pubkey, 'blog-1x9z'); // '35128:<pubkey>:blog-1x9z'
 * manifestAddress(15128, pubkey, undefined);   // '15128:<pubkey>:'
 * ```
 */
export function manifestAddress(kind: 15128 | 35128, pubkey: string, d: string | undefined): string {
  return `${kind}:${pubkey}:${kind === NSITE_ROOT_KIND ? '' : (d ?? '')}`;
}

/**
 * Read an `a` tag's value as a manifest address; `undefined` when it is not one (another kind, a malformed
 * key, a `d` NIP-5A does not allow, a root site with a `d`).
 *
 * @example
 * ```ts
 * parseManifestAddress(`15128:${pubkey}:`); // { kind: 15128, pubkey, d: undefined }
 * ```
 */
export function parseManifestAddress(
  a: string,
): { kind: 15128 | 35128; pubkey: string; d: string | undefined } | undefined {
  const parts = a.split(':');
  if (parts.length !== 3) return undefined;
  const [kind, pubkey, d] = parts as [string, string, string];
  if (!HEX64.test(pubkey)) return undefined;
  if (kind === String(NSITE_ROOT_KIND) && d === '') return { kind: NSITE_ROOT_KIND, pubkey, d: undefined };
  if (kind === String(NSITE_NAMED_KIND) && isSiteId(d)) return { kind: NSITE_NAMED_KIND, pubkey, d };
  return undefined;
}

/**
 * The manifest paths a page URL can be, most likely first (NIP-5A's gateway appends `index.html` to a path
 * not ending in a filename): `/x/` → `/x/index.html`; `/x` → `/x`, `/x.html`, `/x/index.html`;
 * `/x.html` → `/x.html`. Empty when the URL is not under the site.
 *
 * @example
 * ```ts
 * manifestPathsFor('https://x.com/blog/a/', 'https://x.com/'); // ['/blog/a/index.html']
 * ```
 */
export function manifestPathsFor(pageUrl: string, siteUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return [];
  }
  const path = sitePathOf(url, siteUrl);
  if (path === undefined) return [];
  if (path.endsWith('/')) return [`${path}index.html`];
  if (isNameablePath(path)) return [path];
  return [path, `${path}.html`, `${path}/index.html`];
}

/**
 * Whether NIP-5A can name a file at `path` (`/` + POSIX relative path): its last segment has an extension.
 * `CNAME`, `_redirects` and `.nojekyll` have none and are left out of the manifest.
 *
 * @example
 * ```ts
 * isNameablePath('/blog/index.html'); // true
 * isNameablePath('/CNAME');           // false
 * ```
 */
export function isNameablePath(path: string): boolean {
  return /^.+\.[^.]+$/.test(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * Whether a file of the output (POSIX path relative to the output directory) is left out of the manifest
 * as a file Siegel writes beside it: a per-event file `verify/<64 hex>.json` (a signed event itself), the
 * manifest event file or a manifest blob.
 *
 * @example
 * ```ts
 * isManifestExcluded('verify/manifest.json'); // true
 * ```
 */
export function isManifestExcluded(relativePath: string): boolean {
  return /^verify\/(?:[0-9a-f]{64}|manifest|manifest-[0-9a-f]{64})\.json$/.test(relativePath);
}

/** The newest of several manifest events: greatest `created_at`, then lowest id (NIP-01). Signatures are the caller's. */
export function newestManifest(events: NostrEvent[]): NostrEvent | undefined {
  let newest: NostrEvent | undefined;
  for (const event of events) {
    if (
      newest === undefined ||
      event.created_at > newest.created_at ||
      (event.created_at === newest.created_at && event.id < newest.id)
    )
      newest = event;
  }
  return newest;
}

/**
 * Read a manifest event; in layout blob pass the blob's tags (from {@link readManifestBlob}) to read its
 * files and pages (manifest-layout.ts), else only the event's own tags are read.
 *
 * @example
 * ```ts
 * const manifest = readManifest(event);
 * if (manifest.blob) readManifest(event, readManifestBlob(bytes, manifest.blob));
 * ```
 * @throws {Error} when the event is not of a NIP-5A site kind.
 */
export function readManifest(event: NostrEvent, blobTags?: string[][]): SiteManifest {
  if (event.kind !== NSITE_ROOT_KIND && event.kind !== NSITE_NAMED_KIND)
    throw new Error(`Event kind ${event.kind} is not a site manifest (15128 or 35128).`);
  const first = (name: string) => event.tags.find((tag) => tag[0] === name);
  const manifestTag = first('manifest');
  const bytes = Number(manifestTag?.[2]);
  const manifest: SiteManifest = {
    kind: event.kind,
    pubkey: event.pubkey,
    d: event.kind === NSITE_NAMED_KIND ? first('d')?.[1] : undefined,
    siteUrl: first('url')?.[1],
    createdAt: event.created_at,
    eventId: event.id,
    files: new Map(),
    pages: new Map(),
    pagesByEvent: new Map(),
    servers: event.tags.filter((tag) => tag[0] === 'server' && tag[1]).map((tag) => tag[1] as string),
    blob:
      manifestTag && HEX64.test(manifestTag[1] ?? '') && Number.isSafeInteger(bytes) && bytes >= 0
        ? { sha256: manifestTag[1] as string, bytes }
        : undefined,
  };
  const tags = blobTags === undefined ? event.tags : [...event.tags, ...blobTags];
  for (const [name, path, sha, eventId] of tags) {
    if (name !== 'path' || !path?.startsWith('/') || !HEX64.test(sha ?? '')) continue;
    manifest.files.set(path, sha as string);
    if (eventId === undefined || !HEX64.test(eventId)) continue;
    const page: ManifestPage = { path, eventId, loads: [] };
    manifest.pages.set(path, page);
    manifest.pagesByEvent.set(eventId, page);
  }
  for (const [name, path, ...items] of tags) {
    const page = name === 'loads' && path !== undefined ? manifest.pages.get(path) : undefined;
    if (page) page.loads = items;
  }
  return manifest;
}
