import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { CacheJournal } from '../cache/journal.js';
import {
  readSignCache,
  removeStaleCacheTemps,
  type SignCache,
  type SignCacheEntry,
  writeSignCache,
} from '../cache/sign-cache.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { renderMarkLine } from '../page/signature-block.js';

/**
 * The cache as one run uses it: read (with its warnings) at the start, each signed batch appended to the
 * journal before its pages are written, written whole (atomically) at the end. Writes are serialised.
 * Nothing is written in a dry run.
 */
export class RunCache {
  readonly cache: SignCache;
  /** The relays changed since the cache was written: unchanged pages' events go to them too. */
  readonly relaysChanged: boolean;
  readonly #options: ResolvedSignSiteOptions;
  #dirty = false;
  #write: Promise<void> = Promise.resolve();
  #journal: CacheJournal<SignCacheEntry> | undefined;

  private constructor(options: ResolvedSignSiteOptions, cache: SignCache, relaysChanged: boolean) {
    this.#options = options;
    this.cache = cache;
    this.relaysChanged = relaysChanged;
  }

  /**
   * Read the cache for a run signed by `pubkey`, logging what changed since it was written; fold in the
   * journal an interrupted run left (and write the cache with it), and start a new journal.
   */
  static async open(options: ResolvedSignSiteOptions, pubkey: string | undefined): Promise<RunCache> {
    const { logger } = options;
    const { cache, warning, notice, journal, relaysChanged, markChanged, parserChanged } =
      await readSignCache(options.cacheFile, {
        pubkey,
        site: options.site,
        selector: options.selector,
        mirrors: options.mirrors,
        relays: options.relays,
        ...(options.mark ? { mark: renderMarkLine(options.mark) } : {}),
      });
    if (warning) logger.warn(warning);
    if (notice) logger.warn(notice);
    if (relaysChanged && cache.pages.size > 0)
      logger.info('Siegel: relay hints changed; rewriting the blocks of unchanged pages (no re-signing).');
    if (markChanged && cache.pages.size > 0)
      logger.info(
        "Siegel: the reader's mark changed; rewriting the blocks of unchanged pages (no re-signing).",
      );
    if (parserChanged && cache.pages.size > 0)
      logger.info(
        'Siegel: this version reads pages more exactly than the one that wrote the cache; reading every page again once (only pages whose signed element reads differently now are re-signed or refused).',
      );
    const run = new RunCache(options, cache, relaysChanged === true);
    if ((notice || relaysChanged || markChanged || parserChanged) && !options.dryRun) run.#dirty = true;
    if (!options.dryRun) {
      await removeStaleCacheTemps(options.cacheFile);
      // An interrupted run left signed batches in the journal: fold them into the cache before a new
      // journal replaces it.
      if (journal) {
        run.#dirty = true;
        await run.save();
      }
      run.#journal = new CacheJournal(options.cacheFile, cache);
    }
    return run;
  }

  /** The cached entry of a page. */
  get(path: string): SignCacheEntry | undefined {
    return this.cache.pages.get(path);
  }

  /** Set a page's entry (written with the cache at the end of the run). */
  update(path: string, entry: SignCacheEntry): void {
    this.cache.pages.set(path, entry);
    this.#dirty = true;
  }

  /** Set signed pages' entries and append them to the journal; resolves once they are on disk. */
  record(entries: Array<[string, SignCacheEntry]>): Promise<void> {
    for (const [path, entry] of entries) this.update(path, entry);
    const journal = this.#journal;
    if (!journal) return this.save();
    this.#write = this.#write.then(async () => {
      await mkdir(dirname(this.#options.cacheFile), { recursive: true });
      await journal.append(entries);
    });
    return this.#write;
  }

  /** The last site manifest this cache's runs signed. */
  get manifest(): NostrEvent | undefined {
    return this.cache.manifest;
  }

  /** Keep the site manifest just signed (written with the cache). */
  setManifest(event: NostrEvent): void {
    this.cache.manifest = event;
    this.#dirty = true;
  }

  /** Drop the entries of pages that no longer exist. */
  prune(present: Set<string>): void {
    for (const path of this.cache.pages.keys()) {
      if (!present.has(path)) {
        this.cache.pages.delete(path);
        this.#dirty = true;
      }
    }
  }

  /** Write the cache (atomically) if anything changed, then drop the journal. Nothing in a dry run. */
  save(): Promise<void> {
    if (this.#options.dryRun) return this.#write;
    const dirty = this.#dirty;
    this.#dirty = false;
    const file = this.#options.cacheFile;
    const journal = this.#journal;
    this.#write = this.#write.then(async () => {
      if (dirty) {
        await mkdir(dirname(file), { recursive: true });
        await writeSignCache(file, this.cache);
      }
      await journal?.remove();
    });
    return this.#write;
  }
}
