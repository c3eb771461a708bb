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

/** An integer, as `Number.isInteger` has it (offsets in a file of the build). */
const integer = z.number().refine(Number.isInteger);

/** A `start`–`end` range of offsets, `start <= end` (other fields are ignored). */
const rangeSchema = z
  .object({ start: integer, end: integer })
  .refine((range) => range.start <= range.end, 'a range that ends before it starts');

/**
 * One page's entry, by its shape alone. Whether its event is the run's key's and covers its hash is for
 * sign-cache.ts (it depends on the cache's header). Fields it does not know are allowed.
 */
export const cacheEntrySchema = z.looseObject({
  hash: z.string().regex(HEX64),
  /** Checked for its shape only: its id and signature were checked when it was signed. */
  event: z.custom<NostrEvent>(isEventShape),
  fingerprint: z.string(),
  insertAt: integer,
  existingBlock: rangeSchema.optional(),
  bytePlace: z.object({ insertAt: integer, existingBlock: rangeSchema.optional() }).optional(),
  // Not checked: a fingerprint of another shape never equals a file's, so that page is only read again.
  signedFingerprint: z.unknown().optional(),
});

/** A list in the header: anything but an array reads as none (as caches written before the field had it). */
const headerList = z.array(z.unknown()).catch([]);

/**
 * The whole file as writeSignCache writes it: `spec`, `version`, `parser`, `pubkey`, `site`, `selector`,
 * `mirrors` (absent: none), `relays` and `pages` (path → entry). A missing `parser` is revision 1 (caches
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
  pages: z.custom<Record<string, unknown>>((pages) => typeof pages === 'object' && pages !== null).catch({}),
});
