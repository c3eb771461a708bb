import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { isSiegelError } from './errors.js';
import { analyzePage, type PageAnalysis } from './page-analysis.js';
import { createPageEvent, pageUrl } from './page-event.js';
import {
  fingerprintFile,
  readSignCache,
  removeStaleCacheTemps,
  type SignCache,
  type SignCacheEntry,
  writeSignCache,
} from './sign-cache.js';
import type { ResolvedSignSiteOptions } from './sign-site-options.js';
import type { PageOutcome, PageReport, SignSummary } from './sign-summary.js';
import { applySignatureBlock, renderSignatureBlock } from './signature-block.js';
import type { Signer } from './signer.js';
import { createSigner } from './signer-config.js';

/** What became of one page: the html to write (`undefined`: leave the file as it is) and its event. */
export interface PageResult {
  outcome: PageOutcome;
  html: string | undefined;
  event?: NostrEvent;
  url?: string;
  error?: string;
}

interface Pending {
  path: string;
  /** The page as the caller gave it: raw bytes when available (compact, off the JS heap), else the string. */
  source: string | Uint8Array;
  fingerprint: string;
  analysis: PageAnalysis;
  hash: string;
  template: EventTemplate;
  resolve(result: PageResult): void;
  reject(error: unknown): void;
}

/**
 * The machinery shared by `signSite` and `createSiteSigner`: the signer, the cache, and a queue that
 * collects changed pages into batches and keeps a bounded number of batches in flight while the caller
 * goes on parsing. A batch's signatures reach the cache (written atomically) before its pages are handed
 * back to be written, so a crash loses at most the batches in flight.
 */
export class SigningSession {
  readonly options: ResolvedSignSiteOptions;
  readonly cache: SignCache;
  readonly signer: Signer | undefined;
  readonly reports: PageReport[] = [];
  #queue: Pending[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #fatal: unknown;
  #dirty = false;
  #cacheWrite: Promise<void> = Promise.resolve();
  #flushScheduled = false;

  private constructor(options: ResolvedSignSiteOptions, signer: Signer | undefined, cache: SignCache) {
    this.options = options;
    this.signer = signer;
    this.cache = cache;
  }

  /**
   * Check the signer (before anything is written: a missing token, an unknown or locked key, a bunker that
   * is down all throw here) and read the cache.
   * @throws {SiegelError} from the signer.
   */
  static async open(options: ResolvedSignSiteOptions): Promise<SigningSession> {
    const { logger } = options;
    let signer = options.signer;
    if (!signer) {
      try {
        signer = createSigner({
          env: options.env,
          url: options.bunkerUrl,
          apiToken: options.bunkerApiToken,
          keyName: options.bunkerKeyName,
          secretKey: options.env.SIEGEL_SECRET_KEY?.trim() || undefined,
        });
      } catch (error) {
        if (!(options.dryRun && isSiegelError(error, 'token_missing'))) throw error;
        logger.warn('Dry run without BUNKER_API_TOKEN: the key is not checked.');
      }
    }
    let pubkey: string | undefined;
    if (signer) {
      await signer.check?.();
      pubkey = await signer.getPublicKey();
    }
    const { cache, warning, notice } = await readSignCache(options.cacheFile, {
      pubkey,
      site: options.site,
      selector: options.selector,
    });
    if (warning) logger.warn(warning);
    if (notice) logger.warn(notice);
    const session = new SigningSession(options, signer, cache);
    if (notice && !options.dryRun) session.#dirty = true;
    if (!options.dryRun) await removeStaleCacheTemps(options.cacheFile);
    return session;
  }

  /** The first fatal error (a failed batch): the run must stop. */
  get fatal(): unknown {
    return this.#fatal;
  }

  /** Absolute URL of a page. */
  urlOf(path: string): string {
    return pageUrl(this.options.site, path);
  }

  /**
   * Sign one page (or find it unchanged); the caller records the outcome with {@link record}. Resolves once the page's signed html is final; pages that need
   * a signature wait for their batch. `autoFlush` sends a partial batch on the next tick (for callers that
   * hand in pages one by one, like Eleventy's transform).
   */
  processPage(
    path: string,
    html: string,
    options: { bytes?: Uint8Array; autoFlush?: boolean } = {},
  ): Promise<PageResult> {
    if (this.#fatal) return Promise.reject(this.#fatal);
    try {
      return Promise.resolve(this.#prepare(path, html, options.bytes ?? html, options.autoFlush ?? false));
    } catch (error) {
      return Promise.resolve({ outcome: 'failed', html: undefined, error: (error as Error).message });
    }
  }

  /** Add a line to the summary. */
  record(path: string, result: Pick<PageResult, 'outcome' | 'event' | 'error'>): void {
    this.reports.push({
      path,
      outcome: result.outcome,
      ...(result.event ? { eventId: result.event.id } : {}),
      ...(result.error ? { error: result.error } : {}),
    });
  }

  #prepare(
    path: string,
    html: string,
    bytes: Uint8Array | string,
    autoFlush: boolean,
  ): PageResult | Promise<PageResult> {
    const { selector, site } = this.options;
    const fingerprint = fingerprintFile(bytes);
    const entry = this.cache.pages.get(path);
    if (entry && entry.signedFingerprint === fingerprint) {
      // The file is exactly what Siegel wrote last time: nothing to do.
      return { outcome: 'unchanged', html: undefined, event: entry.event, url: this.urlOf(path) };
    }
    if (entry && entry.fingerprint === fingerprint) {
      // The build wrote the same bytes as last time: re-apply the cached block without parsing.
      const signed = applySignatureBlock(html, entry, this.#renderBlock(entry.event));
      this.#update(path, { ...entry, signedFingerprint: fingerprintFile(signed) });
      return { outcome: 'unchanged', html: signed, event: entry.event, url: this.urlOf(path) };
    }
    const analysis = analyzePage(html, { selector });
    if (analysis.hash === undefined) {
      return { outcome: 'skipped', html: undefined, error: `no element matches \`${selector}\`` };
    }
    const place = {
      insertAt: analysis.insertAt,
      ...(analysis.existingBlock ? { existingBlock: analysis.existingBlock } : {}),
    };
    if (entry && entry.hash === analysis.hash) {
      const signed = applySignatureBlock(html, place, this.#renderBlock(entry.event));
      const signedFingerprint = fingerprintFile(signed);
      // A file that already is our signed output keeps the entry's raw-build fingerprint and offsets.
      this.#update(
        path,
        signedFingerprint === fingerprint
          ? { ...entry, signedFingerprint }
          : { hash: entry.hash, event: entry.event, fingerprint, ...place, signedFingerprint },
      );
      return {
        outcome: 'unchanged',
        html: signed === html ? undefined : signed,
        event: entry.event,
        url: this.urlOf(path),
      };
    }
    const url = pageUrl(site, path);
    const template = createPageEvent({
      hash: analysis.hash,
      url,
      ...(analysis.title ? { title: analysis.title } : {}),
      ...(analysis.description ? { description: analysis.description } : {}),
    });
    if (this.options.dryRun || !this.signer) return { outcome: 'would-sign', html: undefined, url };
    const source = typeof bytes === 'string' ? html : bytes;
    return new Promise<PageResult>((resolve, reject) => {
      this.#queue.push({
        path,
        source,
        fingerprint,
        analysis,
        hash: analysis.hash as string,
        template,
        resolve,
        reject,
      });
      if (this.#queue.length >= this.options.batchSize) this.flush();
      else if (autoFlush && !this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => {
          this.#flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  #renderBlock(event: NostrEvent): string {
    return renderSignatureBlock(event, {
      verifyUrl: `${this.options.site}/verify/${event.id}`,
      relays: this.options.relays,
      selector: this.options.selector,
    });
  }

  #update(path: string, entry: SignCacheEntry): void {
    this.cache.pages.set(path, entry);
    this.#dirty = true;
  }

  /** Send the queued pages as one batch now. */
  flush(): void {
    if (this.#queue.length === 0) return;
    const items = this.#queue;
    this.#queue = [];
    const task = this.#signBatch(items).finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
  }

  async #signBatch(items: Pending[]): Promise<void> {
    try {
      if (this.#fatal) throw this.#fatal;
      const events = await (this.signer as Signer).signEvents(items.map((item) => item.template));
      const results: PageResult[] = [];
      for (const [index, item] of items.entries()) {
        const event = events[index] as NostrEvent;
        const place = {
          insertAt: item.analysis.insertAt,
          ...(item.analysis.existingBlock ? { existingBlock: item.analysis.existingBlock } : {}),
        };
        const html =
          typeof item.source === 'string' ? item.source : Buffer.from(item.source).toString('utf8');
        const signed = applySignatureBlock(html, place, this.#renderBlock(event));
        this.#update(item.path, {
          hash: item.hash,
          event,
          fingerprint: item.fingerprint,
          ...place,
          signedFingerprint: fingerprintFile(signed),
        });
        results.push({ outcome: 'signed', html: signed, event, url: item.template.tags[0]?.[1] as string });
      }
      // The signatures reach the cache before the pages reach the disk.
      await this.saveCache();
      for (const [index, item] of items.entries()) item.resolve(results[index] as PageResult);
    } catch (error) {
      this.#fatal ??= error;
      for (const item of items) item.reject(error);
    }
  }

  /** Resolves when fewer than `maxInFlight` batches are in flight (back-pressure for the caller). */
  async waitForCapacity(): Promise<void> {
    while (this.#inFlight.size >= this.options.maxInFlight) await Promise.race(this.#inFlight);
  }

  /** Send what is queued and wait for every batch. */
  async drain(): Promise<void> {
    this.flush();
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** Drop cache entries for pages that no longer exist. */
  prune(present: Set<string>): void {
    for (const path of this.cache.pages.keys()) {
      if (!present.has(path)) {
        this.cache.pages.delete(path);
        this.#dirty = true;
      }
    }
  }

  /** Write the cache (atomically) if anything changed; writes are serialised. Nothing in a dry run. */
  saveCache(): Promise<void> {
    if (this.options.dryRun || !this.#dirty) return this.#cacheWrite;
    this.#dirty = false;
    const file = this.options.cacheFile;
    this.#cacheWrite = this.#cacheWrite.then(async () => {
      await mkdir(dirname(file), { recursive: true });
      await writeSignCache(file, this.cache);
    });
    return this.#cacheWrite;
  }

  /** The summary of everything recorded so far. */
  summary(): SignSummary {
    const pages = [...this.reports].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const count = (outcome: PageOutcome) => pages.filter((page) => page.outcome === outcome).length;
    return {
      signed: count('signed') + count('would-sign'),
      unchanged: count('unchanged'),
      skipped: count('skipped'),
      failed: count('failed'),
      pages,
      ...(this.options.dryRun ? { dryRun: true } : {}),
    };
  }
}
