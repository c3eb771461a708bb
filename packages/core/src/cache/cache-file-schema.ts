// The shape of `.sign-cache.json` (and of the entries in its journal) as zod schemas, read by sign-cache.ts.
// Separate from sign-cache.ts so that what the file may hold is written down in one place, apart from what
// a run keeps in memory and from the rules that compare a cache with the run (key, site, mirrors …).
// The reading is lenient on purpose: a cache is only a shortcut, so anything doubtful costs a re-check,
// never a failed run — anything but a JSON object is corrupt (one warning, the whole cache ignored); a bad
// page entry costs only itself; header fields are taken as they are and compared by sign-cache.ts, which
// decides between a notice (made for something else) and using the cache.
import type { NostrEvent } from 'nostr-tools/core';
import { z } from 'zod';
import { HEX64 } from '../nostr/crypto.js';
import { isEventShape } from '../nostr/event-shape.js';

/** A `start`–`end` range of offsets in a file of the build, `start <= end` (other fields are ignored). */
function isRange(range: unknown): boolean {
  const { start, end } = (range ?? {}) as { start?: unknown; end?: unknown };
  return Number.isInteger(start) && Number.isInteger(end) && (start as number) <= (end as number);
}

/** One page in the cache, keyed by its path relative to the output directory. */
export interface SignCacheEntry {
  /** `siegel-page/2` hash of the page's selected element. */
  hash: string;
  /** The whole signed event for that hash. */
  event: NostrEvent;
  /** SHA-256 of the raw file as the build wrote it (before signing): an identical file skips parsing. */
  fingerprint: string;
  /** Where the block goes in that raw file (UTF-16 offsets), so it can be re-applied without parsing. */
  insertAt: number;
  /** The block already present in that raw file, replaced rather than duplicated. */
  existingBlock?: { start: number; end: number };
  /** `insertAt`/`existingBlock` as UTF-8 byte offsets, to splice the raw file without decoding it. */
  bytePlace?: { insertAt: number; existingBlock?: { start: number; end: number } };
  /** SHA-256 of the file as Siegel wrote it: an already-signed output is recognised as unchanged. */
  signedFingerprint?: string;
  /** What the page loads (page/page-loads.ts), for the site manifest; absent in caches written before it. */
  loads?: string[];
}

/**
 * Whether a value is one page's entry, by its shape alone. Whether its event is the run's key's and covers
 * its hash is for sign-cache.ts (it depends on the cache's header). Written out rather than as a zod object:
 * every entry of a cache is checked when it is read, and zod's parse (which copies each entry, its event and
 * tags included) raised a warm 10 000-page run's peak memory from about 230 to 330 MB.
 */
export function isCacheEntryShape(value: unknown): value is SignCacheEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const place = entry.bytePlace as Record<string, unknown> | undefined;
  return (
    typeof entry.hash === 'string' &&
    HEX64.test(entry.hash) &&
    isEventShape(entry.event) &&
    typeof entry.fingerprint === 'string' &&
    Number.isInteger(entry.insertAt) &&
    (entry.loads === undefined ||
      (Array.isArray(entry.loads) && entry.loads.every((item) => typeof item === 'string'))) &&
    (entry.existingBlock === undefined || isRange(entry.existingBlock)) &&
    (place === undefined ||
      (typeof place === 'object' &&
        place !== null &&
        Number.isInteger(place.insertAt) &&
        (place.existingBlock === undefined || isRange(place.existingBlock))))
  );
}

/** One page's entry, as a schema (for the file's description and for callers that validate with zod). */
export const cacheEntrySchema = z.custom<SignCacheEntry>(isCacheEntryShape);

/** A list in the header: anything but an array reads as none (as caches written before the field had it). */
const headerList = z.array(z.unknown()).catch([]);

/**
 * The whole file as writeSignCache writes it: `spec`, `version`, `parser`, `pubkey`, `site`, `selector`,
 * `mirrors` (absent: none), `relays`, `mark` (the reader's mark line; absent: none), `manifest` (the last site manifest signed; absent: none) and `pages`
 * (path → entry). A missing `parser` is revision 1 (caches
 * written before it existed). `pages` is taken if it is an object of any kind; its entries are checked one
 * by one with {@link cacheEntrySchema}.
 */
export const cacheFileSchema = z.object({
  spec: z.unknown().optional(),
  version: z.unknown().optional(),
  parser: z
    .unknown()
    .optional()
    .transform((revision) => revision ?? 1),
  pubkey: z.unknown().optional(),
  site: z.unknown().optional(),
  selector: z.unknown().optional(),
  mirrors: headerList,
  relays: headerList,
  mark: z.unknown().optional(),
  manifest: z.unknown().optional(),
  pages: z.custom<Record<string, unknown>>((pages) => typeof pages === 'object' && pages !== null).catch({}),
});
