// cache/ owns `.sign-cache.json`, what makes a later run re-sign only changed pages: per page the hash,
// the signed event, the fingerprints of the file as built and as signed, and where the block went, under a
// header of what the cache was made for (key, site, mirrors, selector, relay hints). The cache is written whole and
// atomically at the end of a run; during a run each signed batch is appended to a journal beside it
// (journal.ts), so that a killed run loses at most the batches in flight.
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { isStaleTempName, writeFileAtomic } from '../fs/atomic-write.js';
import { isEventShape } from '../nostr/event-shape.js';
import { PARSER_REVISION } from '../page/parse.js';
import { cacheFileSchema, isCacheEntryShape, type SignCacheEntry } from './cache-file-schema.js';
import { journalFileOf, readJournal } from './journal.js';
import { scanDocument, scanObject } from './json-members.js';
import { PackedPages } from './packed-pages.js';

/** Spec the cache's hashes follow; a cache for another spec is not used. */
export const CACHE_SPEC = 'siegel-page/2';
/** Layout version of `.sign-cache.json`. */
export const CACHE_VERSION = 1;

/** What a cache was made for. A cache whose header differs is not used: every page is re-signed. */
export interface SignCacheHeader {
  /** Hex pubkey of the signer. */
  pubkey: string;
  /** Site URL the events' `url` tags and verify links were made for. */
  site: string;
  /** CSS selector of the signed element. */
  selector: string;
  /**
   * Mirror base URLs the events' `fallback` tags were made for (default none; a cache written before
   * mirrors existed counts as none). Another list re-signs every page: the events change.
   */
  mirrors?: string[];
  /**
   * Relay hints in the blocks' `nevent` (default none). Not part of what a cache is *for*: a change keeps
   * every event (no re-signing) but forgets the signed-output fingerprints, so every block is rewritten.
   */
  relays?: string[];
  /**
   * The reader's mark line the blocks carry (`renderMarkLine`; default none). Like `relays`: a change keeps
   * every event but forgets the signed-output fingerprints, so every block is rewritten.
   */
  mark?: string;
}

export type { SignCacheEntry } from './cache-file-schema.js';

/** The in-memory cache: a header and the entries. */
export interface SignCache extends SignCacheHeader {
  pages: Map<string, SignCacheEntry>;
  /**
   * The last site manifest the cache's runs signed (pipeline/sign-manifest.ts): a build that empties the
   * output removes `verify/manifest.json`, and the manifest must not be signed again for that.
   */
  manifest?: NostrEvent;
}

/** Result of {@link readSignCache}: the cache to use, plus any warning or notice to show. */
export interface ReadSignCacheResult {
  cache: SignCache;
  /** Entries came from the journal of an interrupted run (write the cache to fold them in). */
  journal?: boolean;
  /** The cache was made with other relay hints: events kept, every block is to be rewritten. */
  relaysChanged?: boolean;
  /** The cache was made with another reader's mark (or none): events kept, every block is to be rewritten. */
  markChanged?: boolean;
  /** The cache was made by an older page reading ({@link PARSER_REVISION}): events kept, every page read again. */
  parserChanged?: boolean;
  /** A corrupt or unreadable cache (it is ignored). */
  warning?: string;
  /** A cache made for another key, site, mirrors, selector or spec (it is ignored: all pages are re-signed). */
  notice?: string;
}

/** SHA-256 hex of raw bytes (a file's fingerprint). */
export function fingerprintFile(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Read `.sign-cache.json`. A missing file gives an empty cache; a corrupt one gives an empty cache and a
 * `warning`; one made for another header (`pubkey` `undefined` means "not known yet", e.g. a dry run
 * without token: any key matches) gives an empty cache and a `notice`. Never throws for content problems.
 *
 * @example
 * ```ts
 * const { cache, warning, notice } = await readSignCache('.sign-cache.json', { pubkey, site, selector });
 * ```
 */
export async function readSignCache(
  file: string,
  header: Omit<SignCacheHeader, 'pubkey'> & { pubkey: string | undefined },
): Promise<ReadSignCacheResult> {
  const result = await readSnapshot(file, header);
  const journaled = await readJournal(journalFileOf(file), result.cache, isEntry);
  return journaled > 0 ? { ...result, journal: true } : result;
}

async function readSnapshot(
  file: string,
  header: Omit<SignCacheHeader, 'pubkey'> & { pubkey: string | undefined },
): Promise<ReadSignCacheResult> {
  const empty = (): SignCache => ({
    pubkey: header.pubkey ?? '',
    site: header.site,
    selector: header.selector,
    mirrors: header.mirrors ?? [],
    relays: header.relays ?? [],
    ...(header.mark ? { mark: header.mark } : {}),
    pages: new PackedPages<SignCacheEntry>(),
  });
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { cache: empty() };
    return {
      cache: empty(),
      warning: `Cannot read the cache \`${file}\` (${(error as Error).message}); signing without it.`,
    };
  }
  // The header's values are parsed; the pages' entries stay text until each is checked and packed below,
  // so the whole cache never exists as one tree of objects (for 30 000 pages that was over 100 MB).
  const fields: Record<string, unknown> = {};
  let pageTexts: Array<[string, number, number]> | undefined;
  let parsed: ReturnType<typeof cacheFileSchema.safeParse> | undefined;
  try {
    for (const [key, start, end] of scanDocument(text)) {
      if (key === 'pages' && text[start] === '{') pageTexts = scanObject(text, start).members;
      else fields[key] = JSON.parse(text.slice(start, end));
    }
    parsed = cacheFileSchema.safeParse(fields);
  } catch {}
  if (!parsed?.success) {
    return {
      cache: empty(),
      warning: `The cache \`${file}\` is corrupt; ignoring it and re-checking every page.`,
    };
  }
  const data = parsed.data;
  const made = `${String(data.spec)} / ${String(data.pubkey)} / ${String(data.site)} / ${String(data.selector)}`;
  if (data.spec !== CACHE_SPEC || data.version !== CACHE_VERSION) {
    return {
      cache: empty(),
      notice: `The cache \`${file}\` is for another spec or version; re-signing all pages.`,
    };
  }
  if (header.pubkey !== undefined && data.pubkey !== header.pubkey) {
    return {
      cache: empty(),
      notice: `The cache \`${file}\` was made for the key \`${String(data.pubkey)}\`, now signing as \`${header.pubkey}\`: re-signing all pages.`,
    };
  }
  if (data.site !== header.site || data.selector !== header.selector) {
    return {
      cache: empty(),
      notice: `The cache \`${file}\` was made for another site or selector (${made}); re-signing all pages.`,
    };
  }
  // Other mirrors: every event's `fallback` tags change, so every page is signed again.
  const mirrors = header.mirrors ?? [];
  const cachedMirrors = data.mirrors;
  if (!sameList(cachedMirrors, mirrors)) {
    const list = (values: unknown[]) => (values.length > 0 ? values.join(', ') : 'none');
    return {
      cache: empty(),
      notice: `The cache \`${file}\` was made for other mirrors (${list(cachedMirrors)}; now ${list(mirrors)}); re-signing all pages.`,
    };
  }
  // Packed (one JSON text per page): the parsed file is garbage once this loop is done.
  const pages = new PackedPages<SignCacheEntry>();
  let dropped = 0;
  // Other relay hints: the events stay valid, but files Siegel wrote carry the old `nevent`.
  const relays = header.relays ?? [];
  const sameRelays = sameList(data.relays, relays);
  // Another mark line: the same, the files Siegel wrote carry the old one.
  const sameMark = (typeof data.mark === 'string' ? data.mark : '') === (header.mark ?? '');
  const sameBlocks = sameRelays && sameMark;
  // Another page reading (a cache from before `parser` existed is revision 1): the events stay, but no file
  // may skip parsing — its element may read differently now, or be refused — so the fingerprints go.
  const sameParser = data.parser === PARSER_REVISION;
  const entries: Iterable<[string, unknown, string | undefined]> = pageTexts
    ? pageTexts.map(([path, start, end]) => [path, undefined, text.slice(start, end)])
    : Object.entries(data.pages).map(([path, entry]) => [path, entry, undefined]);
  for (const [path, value, entryText] of entries) {
    let entry = value;
    try {
      if (entryText !== undefined) entry = JSON.parse(entryText);
    } catch {}
    if (!isEntry(entry, String(data.pubkey))) dropped++;
    else if (!sameParser) {
      const { signedFingerprint: _, bytePlace: __, ...kept } = entry;
      pages.set(path, { ...kept, fingerprint: '' });
    } else if (sameBlocks && entryText !== undefined) pages.setText(path, entryText);
    else if (sameBlocks) pages.set(path, entry);
    else {
      const { signedFingerprint: _, ...kept } = entry;
      pages.set(path, kept);
    }
  }
  // The manifest is checked (signature, kind, tags) where it is used; here only its shape and key.
  const manifest =
    isEventShape(data.manifest) && data.manifest.pubkey === data.pubkey ? data.manifest : undefined;
  return {
    cache: {
      pubkey: String(data.pubkey),
      site: header.site,
      selector: header.selector,
      mirrors,
      relays,
      ...(header.mark ? { mark: header.mark } : {}),
      pages,
      ...(manifest ? { manifest } : {}),
    },
    ...(sameRelays ? {} : { relaysChanged: true }),
    ...(sameMark ? {} : { markChanged: true }),
    ...(sameParser ? {} : { parserChanged: true }),
    ...(dropped > 0
      ? {
          warning: `Ignored ${dropped} malformed entr${dropped === 1 ? 'y' : 'ies'} in the cache \`${file}\`.`,
        }
      : {}),
  };
}

/**
 * Write the cache atomically (temp file + rename): a crash leaves the previous or the new cache, whole.
 * @throws {SiegelError} `io_error` when the file cannot be written.
 */
export async function writeSignCache(file: string, cache: SignCache): Promise<void> {
  const header = {
    spec: CACHE_SPEC,
    version: CACHE_VERSION,
    parser: PARSER_REVISION,
    pubkey: cache.pubkey,
    site: cache.site,
    selector: cache.selector,
    ...(cache.mirrors && cache.mirrors.length > 0 ? { mirrors: cache.mirrors } : {}),
    relays: cache.relays ?? [],
    ...(cache.mark ? { mark: cache.mark } : {}),
    ...(cache.manifest ? { manifest: cache.manifest } : {}),
  };
  // The same JSON as `JSON.stringify({ ...header, pages })`, encoded piece by piece into one buffer from
  // each entry's text: packed pages are written as they are held, never unpacked, and no string of the
  // whole file is built.
  const { pages } = cache;
  const pieces = [`${JSON.stringify(header).slice(0, -1)},"pages":{`];
  for (const path of [...pages.keys()].sort()) {
    const entry =
      (pages instanceof PackedPages ? pages.text(path) : undefined) ?? JSON.stringify(pages.get(path));
    pieces.push(`${pieces.length > 1 ? ',' : ''}${JSON.stringify(path)}:`, entry);
  }
  pieces.push('}}\n');
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8');
  const text = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieces) at += text.write(piece, at, 'utf8');
  try {
    await writeFileAtomic(file, text);
  } catch (cause) {
    throw new SiegelError('io_error', `Cannot write the cache \`${file}\``, { cause });
  }
}

/**
 * A page entry of the file (or of its journal) that this cache can use: of the shape {@link isCacheEntryShape}
 * describes, its event signed by the cache's key and covering the entry's hash. The entry is kept as read.
 */
function isEntry(value: unknown, pubkey: string): value is SignCacheEntry {
  if (!isCacheEntryShape(value)) return false;
  const { event, hash } = value;
  return event.pubkey === pubkey && event.tags.some((tag) => tag[0] === 'x' && tag[1] === hash);
}

/** Remove temp files of cache writes that a killed run left next to the cache. */
export async function removeStaleCacheTemps(file: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  const stale = names.filter((name) => isStaleTempName(name, basename(file)));
  await Promise.all(stale.map((name) => rm(join(dirname(file), name), { force: true })));
}

function sameList(a: unknown[], b: string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
