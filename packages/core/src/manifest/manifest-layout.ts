// The manifest's tags as a signing run writes them, in one of two layouts (docs/site-manifest.md): inline,
// every tag in the event, while the signed event stays under INLINE_LIMITS; else blob, the full tag list in
// a JSON file `verify/manifest-<sha256>.json` whose hash and length the event carries, with one `path` tag
// naming that file so the event stays valid NIP-5A. And the reading of such a blob back, hash checked.
// Pure: bundled into the browser verify script.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  INLINE_LIMITS,
  MANIFEST_BLOB_FORMAT,
  type NSITE_NAMED_KIND,
  NSITE_ROOT_KIND,
  RELAY_LIMITS,
} from './site-manifest.js';

/** What a signing run knows of its site when it lays the manifest out. */
export interface ManifestInput {
  kind: typeof NSITE_ROOT_KIND | typeof NSITE_NAMED_KIND;
  /** The site id; ignored for a root site. */
  d: string | undefined;
  /** The site URL: `siteBaseOf(site) + '/'`. */
  siteUrl: string;
  title?: string | undefined;
  description?: string | undefined;
  /** Blossom servers (`server` tags), in order. */
  servers: readonly string[];
  /** '/abs/path.ext' → sha256 hex: every file listed. */
  files: ReadonlyMap<string, string>;
  /** Path → the page event signed there and what the page loads. */
  pages: ReadonlyMap<string, { eventId: string; loads: readonly string[] }>;
}

/** The tags a manifest event carries, and in layout blob the file that holds the full list. */
export interface ManifestLayout {
  layout: 'inline' | 'blob';
  tags: string[][];
  /** Layout blob: the file to write beside the event (`path` relative to the output directory). */
  blob: { path: string; text: string; sha256: string; bytes: number } | undefined;
}

const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).length;

/** The size in bytes of the signed event's NIP-01 JSON for these tags (id, key and signature at full length). */
export function signedEventBytes(kind: number, tags: string[][]): number {
  const placeholder = {
    id: '0'.repeat(64),
    pubkey: '0'.repeat(64),
    created_at: 9_999_999_999,
    kind,
    tags,
    content: '',
    sig: '0'.repeat(128),
  };
  return byteLength(JSON.stringify(placeholder));
}

/** The head tags both layouts carry: `d` (named site), `url`, `title`, `description`, one `server` each. */
function headTags(input: ManifestInput): string[][] {
  const tags: string[][] = [];
  if (input.kind !== NSITE_ROOT_KIND) tags.push(['d', input.d ?? '']);
  tags.push(['url', input.siteUrl]);
  const title = input.title?.trim();
  const description = input.description?.trim();
  if (title) tags.push(['title', title]);
  if (description) tags.push(['description', description]);
  for (const server of input.servers) tags.push(['server', server]);
  return tags;
}

/** The `path` tags (a signed page's with its event id) and `loads` tags, sorted by path in code-unit order. */
function listTags(input: ManifestInput): string[][] {
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const tags: string[][] = [];
  for (const path of [...input.files.keys()].sort(byPath)) {
    const page = input.pages.get(path);
    const sha = input.files.get(path) as string;
    tags.push(page ? ['path', path, sha, page.eventId] : ['path', path, sha]);
  }
  for (const path of [...input.pages.keys()].sort(byPath)) {
    const page = input.pages.get(path);
    if (page && page.loads.length > 0 && input.files.has(path)) tags.push(['loads', path, ...page.loads]);
  }
  return tags;
}

/**
 * The manifest's tags, inline when the signed event fits INLINE_LIMITS and no tag value is over
 * RELAY_LIMITS.maxTagValueBytes, else layout blob: the full list (without `d`) as
 * `{"siegel":"site-manifest/1","tags":[…]}` in `verify/manifest-<sha256>.json`, and the event carries the
 * head tags, `["manifest", sha256, bytes]` and `["path", "/verify/manifest-<sha256>.json", sha256]`.
 *
 * @example
 * ```ts
 * const { tags, blob } = layOutManifest({ kind: 35128, d, siteUrl, servers: [], files, pages });
 * if (blob) await writeFileAtomic(join(outDir, blob.path), blob.text);
 * ```
 */
export function layOutManifest(input: ManifestInput): ManifestLayout {
  const head = headTags(input);
  const tags = [...head, ...listTags(input)];
  const valueTooLong = tags.some((tag) =>
    tag.some(
      (value) =>
        value.length * 3 > RELAY_LIMITS.maxTagValueBytes && byteLength(value) > RELAY_LIMITS.maxTagValueBytes,
    ),
  );
  if (
    !valueTooLong &&
    tags.length <= INLINE_LIMITS.maxTags &&
    signedEventBytes(input.kind, tags) <= INLINE_LIMITS.maxEventBytes
  )
    return { layout: 'inline', tags, blob: undefined };
  const text = JSON.stringify({ siegel: MANIFEST_BLOB_FORMAT, tags: tags.filter((tag) => tag[0] !== 'd') });
  const bytes = encoder.encode(text);
  const hash = bytesToHex(sha256(bytes));
  const path = `verify/manifest-${hash}.json`;
  return {
    layout: 'blob',
    tags: [...head, ['manifest', hash, String(bytes.length)], ['path', `/${path}`, hash]],
    blob: { path, text, sha256: hash, bytes: bytes.length },
  };
}

/**
 * The tags of a manifest blob, after checking its length and SHA-256 against what the signed event names
 * and its format.
 *
 * @example
 * ```ts
 * const manifest = readManifest(event);
 * const full = readManifest(event, readManifestBlob(await fetchBytes(url), manifest.blob));
 * ```
 * @throws {Error} when the bytes are not the blob the event names, or not a `site-manifest/1` document.
 */
export function readManifestBlob(bytes: Uint8Array, expected: { sha256: string; bytes: number }): string[][] {
  if (bytes.length !== expected.bytes)
    throw new Error(`The manifest blob has ${bytes.length} bytes; the manifest names ${expected.bytes}.`);
  const hash = bytesToHex(sha256(bytes));
  if (hash !== expected.sha256)
    throw new Error(`The manifest blob's SHA-256 is ${hash}; the manifest names ${expected.sha256}.`);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error('The manifest blob is not JSON.');
  }
  const { siegel, tags } = (document ?? {}) as { siegel?: unknown; tags?: unknown };
  if (
    siegel !== MANIFEST_BLOB_FORMAT ||
    !Array.isArray(tags) ||
    !tags.every((tag) => Array.isArray(tag) && tag.every((value) => typeof value === 'string'))
  )
    throw new Error(`The manifest blob is not a \`${MANIFEST_BLOB_FORMAT}\` document.`);
  return tags as string[][];
}
