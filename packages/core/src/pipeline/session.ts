import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { CacheJournal } from '../cache/journal.js';
import {
  fingerprintFile,
  readSignCache,
  removeStaleCacheTemps,
  type SignCache,
  type SignCacheEntry,
  writeSignCache,
} from '../cache/sign-cache.js';
import { isSiegelError } from '../errors.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import { outboxFileOf } from '../nostr/publish-outbox.js';
import { type PublishReport, PublishSession } from '../nostr/publish-session.js';
import type { Signer } from '../nostr/signer.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { type ParsedPage, parsePageForSigning } from '../page/analyze.js';
import { createPageEvent, pageUrl } from '../page/page-event.js';
import { applySignatureBlock, renderSignatureBlock } from '../page/signature-block.js';
import { type BlockPlace, spliceBlockBytes } from '../page/splice.js';
import { checkSignedEvents } from '../signer/check-events.js';
import { openSigner } from '../signer/create-signer.js';
import { formatByteSize } from '../text/byte-size.js';
import { type ProblemCode, refusalProblemCode } from '../verify/rules.js';
import { type PageOutcome, type PageReport, type SignSummary, summarize } from './summary.js';

/** What became of one page: what to write (`undefined`: leave the file as it is) and its event. */
export interface PageResult {
  outcome: PageOutcome;
  /** The signed page's bytes. */
  output: Buffer | undefined;
  event?: NostrEvent;
  url?: string;
  error?: string;
  /** The rule book's code of a refusal (`page.not_shown`…): the code a verifier gives the same page. */
  code?: ProblemCode;
}

interface Pending {
  path: string;
  /** The page's own copy of its raw bytes (compact, off the JS heap). */
  input: Buffer;
  fingerprint: string;
  place: BlockPlace;
  bytePlace: BlockPlace;
  hash: string;
  url: string;
  template: EventTemplate;
  resolve(result: PageResult): void;
  reject(error: unknown): void;
}

/**
 * The machinery of `signSite`: the signer, the cache, and a queue that collects changed pages into batches
 * and keeps a bounded number of batches in flight while the caller goes on parsing. A batch's signatures reach the cache (written atomically) before its pages are handed
 * back to be written, so a crash loses at most the batches in flight.
 */
export class SigningSession {
  readonly options: ResolvedSignSiteOptions;
  readonly cache: SignCache;
  readonly signer: Signer | undefined;
  readonly reports: PageReport[] = [];
  #queue: Pending[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  /** Pages being parsed elsewhere (a worker); they join the queue when parsed. */
  readonly #analyzing = new Set<Promise<unknown>>();
  #fatal: unknown;
  #dirty = false;
  #cacheWrite: Promise<void> = Promise.resolve();
  #journal: CacheJournal<SignCacheEntry> | undefined;
  #flushRequested = false;
  /** Publishing to the relays (when relays are configured and this is no dry run). */
  #publishing: PublishSession | undefined;
  /** The relays changed since the cache was written: unchanged pages' events go to them too. */
  #republishUnchanged = false;
  /** The signer was made for this run (not passed in): the run closes it. */
  #ownsSigner = false;
  /** The signer's pubkey: every event it returns must carry it. */
  #pubkey: string | undefined;
  /** A batch was signed in this run: the signer signs. */
  #signedBatch = false;
  /** The signer's probe, once asked for (see {@link proveSigner}). */
  #proven: Promise<void> | undefined;

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
    const { signer, pubkey, owned } = await openSigner(options);
    try {
      const session = await SigningSession.#open(options, signer, pubkey);
      session.#ownsSigner = owned;
      return session;
    } catch (error) {
      if (owned) await signer?.close?.();
      throw error;
    }
  }

  static async #open(
    options: ResolvedSignSiteOptions,
    signer: Signer | undefined,
    pubkey: string | undefined,
  ): Promise<SigningSession> {
    const { logger } = options;
    const { cache, warning, notice, journal, relaysChanged, parserChanged } = await readSignCache(
      options.cacheFile,
      {
        pubkey,
        site: options.site,
        selector: options.selector,
        mirrors: options.mirrors,
        relays: options.relays,
      },
    );
    if (warning) logger.warn(warning);
    if (notice) logger.warn(notice);
    if (relaysChanged && cache.pages.size > 0)
      logger.info('Siegel: relay hints changed; rewriting the blocks of unchanged pages (no re-signing).');
    if (parserChanged && cache.pages.size > 0)
      logger.info(
        'Siegel: this version reads pages more exactly than the one that wrote the cache; reading every page again once (only pages whose signed element reads differently now are re-signed or refused).',
      );
    const session = new SigningSession(options, signer, cache);
    session.#pubkey = pubkey;
    if ((notice || relaysChanged || parserChanged) && !options.dryRun) session.#dirty = true;
    if (!options.dryRun) {
      await removeStaleCacheTemps(options.cacheFile);
      // An interrupted run left signed batches in the journal: fold them into the cache before a new
      // journal replaces it.
      if (journal) {
        session.#dirty = true;
        await session.saveCache();
      }
      session.#journal = new CacheJournal(options.cacheFile, cache);
    }
    if (options.relays.length > 0 && !options.dryRun && signer) {
      const { session: publishing, warning: outboxWarning } = await PublishSession.open({
        relays: options.relays,
        outboxFile: outboxFileOf(options.cacheFile),
        budgetMs: options.publishTimeoutMs,
      });
      if (outboxWarning) logger.warn(outboxWarning);
      session.#publishing = publishing;
      // Earlier runs' events that some relay has not taken yet, once their next try has come.
      publishing.sendOutbox({ dueOnly: true });
      session.#republishUnchanged = relaysChanged === true;
    }
    return session;
  }

  /** Release the signer's connections (a NIP-46 signer's relays) when the run made the signer. */
  async closeSigner(): Promise<void> {
    if (this.#ownsSigner) await this.signer?.close?.();
  }

  /** A batch was signed in this run. */
  get signedAny(): boolean {
    return this.#signedBatch;
  }

  /**
   * Before a page that needs no new signature is written while nothing was signed yet: let the signer prove
   * that it signs now (`Signer.probe`; a NIP-46 signer with a locked key fails here), so that a run that
   * cannot sign writes nothing. Its error is the run's fatal error.
   */
  proveSigner(): Promise<void> {
    const signer = this.signer;
    if (!signer?.probe || this.options.dryRun || this.#signedBatch) return Promise.resolve();
    this.#proven ??= signer.probe().catch((error: unknown) => {
      this.#fatal ??= error;
      throw error;
    });
    return this.#proven;
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
   * Sign one page (or find it unchanged); the caller records the outcome with {@link record}. `input` is the
   * page's raw bytes, valid only during this call (a view into a reused read buffer): a page that needs
   * parsing or signing gets its own copy; unchanged pages, most of a warm run, need none and are spliced
   * without decoding. Resolves once the page's signed output is final; pages that need a signature wait for
   * their batch; {@link drain} sends the last, partial one.
   */
  processPage(
    path: string,
    input: Buffer,
    options: {
      analyze?: (bytes: Buffer) => Promise<{ parsed: ParsedPage; bytes: Buffer }>;
      /** `input` is the page's own buffer (a large page read alone), not a view into a reused one: no copy. */
      owned?: boolean;
    } = {},
  ): Promise<PageResult> {
    if (this.#fatal) return Promise.reject(this.#fatal);
    const failed = (error: unknown): PageResult => ({
      outcome: 'failed',
      output: undefined,
      error: (error as Error)?.message ?? String(error),
    });
    try {
      return Promise.resolve(this.#prepare(path, input, options.analyze, options.owned ?? false)).catch(
        failed,
      );
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  }

  /** Add a line to the summary. */
  record(path: string, result: Pick<PageResult, 'outcome' | 'event' | 'error' | 'code'>): void {
    // Unchanged pages' events reached the relays in an earlier run (or wait in the outbox), unless the
    // relays changed since.
    if (this.#republishUnchanged && result.outcome === 'unchanged' && result.event)
      this.#publishing?.send([result.event]).catch((error: unknown) => {
        this.#fatal ??= error;
      });
    this.reports.push({
      path,
      outcome: result.outcome,
      ...(result.event ? { eventId: result.event.id } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.code ? { code: result.code } : {}),
    });
  }

  /** The page with the block for `event`, spliced by byte offsets when they are known. */
  #apply(input: Buffer, place: BlockPlace, bytePlace: BlockPlace, event: NostrEvent): Buffer {
    const block = this.#renderBlock(event);
    return (
      spliceBlockBytes(input, bytePlace, block) ??
      Buffer.from(applySignatureBlock(input.toString('utf8'), place, block), 'utf8')
    );
  }

  #prepare(
    path: string,
    input: Buffer,
    analyze: ((bytes: Buffer) => Promise<{ parsed: ParsedPage; bytes: Buffer }>) | undefined,
    ownsInput: boolean,
  ): PageResult | Promise<PageResult> {
    const fingerprint = fingerprintFile(input);
    const entry = this.cache.pages.get(path);
    if (entry && entry.signedFingerprint === fingerprint) {
      // The file is exactly what Siegel wrote last time: nothing to do.
      return { outcome: 'unchanged', output: undefined, event: entry.event, url: this.urlOf(path) };
    }
    if (entry && entry.fingerprint === fingerprint && entry.bytePlace) {
      // The build wrote the same bytes as last time: re-apply the cached block without parsing.
      const output = this.#apply(input, entry, entry.bytePlace, entry.event);
      // Same bytes and same event give the same output as last time: its fingerprint is known already.
      if (entry.signedFingerprint === undefined)
        this.#update(path, { ...entry, signedFingerprint: fingerprintFile(output) });
      return { outcome: 'unchanged', output, event: entry.event, url: this.urlOf(path) };
    }
    // From here on the page is parsed and maybe queued for signing: it must own its bytes.
    const owned = ownsInput ? input : Buffer.from(input);
    if (analyze) {
      // Wrapped, so that `stage` settles when the page is parsed and queued, not when it is signed.
      const stage = analyze(owned).then(({ parsed, bytes }) => ({
        result: this.#sign(path, bytes, fingerprint, entry, parsed),
      }));
      const settled: Promise<void> = stage.then(
        () => void this.#analyzing.delete(settled),
        () => void this.#analyzing.delete(settled),
      );
      this.#analyzing.add(settled);
      return stage.then(({ result }) => result);
    }
    return this.#sign(path, owned, fingerprint, entry, parsePageForSigning(owned, this.options.selector));
  }

  /** After the parse: unchanged (cached event) or queued for signing. */
  #sign(
    path: string,
    input: Buffer,
    fingerprint: string,
    entry: SignCacheEntry | undefined,
    parsed: ParsedPage,
  ): PageResult | Promise<PageResult> {
    const { selector, site } = this.options;
    if (parsed.hash === undefined) {
      return { outcome: 'skipped', output: undefined, error: `no element matches \`${selector}\`` };
    }
    if (parsed.refusal)
      return {
        outcome: 'refused',
        output: undefined,
        error: parsed.refusal.message,
        code: refusalProblemCode(parsed.refusal),
      };
    const { place, bytePlace } = parsed;
    const where = { ...place, bytePlace };
    const hash = parsed.hash;
    if (entry && entry.hash === hash) {
      const output = this.#apply(input, place, bytePlace, entry.event);
      const signedFingerprint = fingerprintFile(output);
      // A file that already is our signed output keeps the entry's raw-build fingerprint and offsets.
      this.#update(
        path,
        signedFingerprint === fingerprint
          ? { ...entry, signedFingerprint }
          : { hash: entry.hash, event: entry.event, fingerprint, ...where, signedFingerprint },
      );
      return {
        outcome: 'unchanged',
        output: signedFingerprint === fingerprint ? undefined : output,
        event: entry.event,
        url: this.urlOf(path),
      };
    }
    const url = pageUrl(site, path);
    const template = createPageEvent({
      hash,
      url,
      fallbacks: this.options.mirrors.map((mirror) => pageUrl(mirror, path)),
      ...(parsed.title ? { title: parsed.title } : {}),
      ...(parsed.description ? { description: parsed.description } : {}),
    });
    if (this.options.dryRun || !this.signer) return { outcome: 'would-sign', output: undefined, url };
    return new Promise<PageResult>((resolve, reject) => {
      this.#queue.push({
        path,
        input,
        fingerprint,
        place,
        bytePlace,
        hash,
        url,
        template,
        resolve,
        reject,
      });
      this.#pump();
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

  /** Send the queued pages now (as soon as fewer than `maxInFlight` batches are in flight). */
  flush(): void {
    if (this.#queue.length === 0) return;
    this.#flushRequested = true;
    this.#pump();
  }

  /**
   * Start batches while fewer than `maxInFlight` are in flight: a full batch at once; while nothing is in
   * flight, a quarter batch too (so the bunker starts early and the last batch, signed after parsing
   * ends, stays small); anything when a flush was asked for. Never more than `maxInFlight` batches are in
   * flight — a crash loses at most those.
   */
  #pump(): void {
    const { batchSize, maxInFlight } = this.options;
    const early = Math.min(batchSize, Math.max(50, Math.ceil(batchSize / 4)));
    while (this.#queue.length > 0 && this.#inFlight.size < maxInFlight) {
      const ready =
        this.#flushRequested ||
        this.#queue.length >= batchSize ||
        (this.#inFlight.size === 0 && this.#queue.length >= early);
      if (!ready) break;
      const items = this.#queue.splice(0, batchSize);
      const task: Promise<void> = this.#signBatch(items).finally(() => {
        this.#inFlight.delete(task);
        this.#pump();
      });
      this.#inFlight.add(task);
    }
    if (this.#queue.length === 0) this.#flushRequested = false;
  }

  async #signBatch(items: Pending[]): Promise<void> {
    try {
      if (this.#fatal) throw this.#fatal;
      const templates = items.map((item) => item.template);
      const events = await this.#signChecked(templates);
      const results: PageResult[] = [];
      const journal: Array<[string, SignCacheEntry]> = [];
      for (const [index, item] of items.entries()) {
        const event = events[index] as NostrEvent | Error;
        if (event instanceof Error) {
          // Refused by the signer: this page fails and stays as the build wrote it; the others go on.
          const size = formatByteSize(Buffer.byteLength(JSON.stringify(item.template), 'utf8'));
          results.push({
            outcome: 'failed',
            output: undefined,
            error: `its event (${size}) was not signed: ${event.message}`,
          });
          continue;
        }
        const output = this.#apply(item.input, item.place, item.bytePlace, event);
        const entry: SignCacheEntry = {
          hash: item.hash,
          event,
          fingerprint: item.fingerprint,
          ...item.place,
          bytePlace: item.bytePlace,
          signedFingerprint: fingerprintFile(output),
        };
        this.#update(item.path, entry);
        journal.push([item.path, entry]);
        results.push({ outcome: 'signed', output, event, url: item.url });
      }
      if (journal.length > 0) this.#signedBatch = true;
      // The events reach the outbox's journal first (then go off to the relays while the run goes on;
      // finishPublishing waits for the answers within the run's budget): a page the cache calls signed
      // always has its event in the outbox or on its relays, whenever the run is killed.
      await this.#publishing?.send(journal.map(([, entry]) => entry.event));
      // The signatures reach the cache's journal before the pages reach the disk.
      if (journal.length > 0) await this.#appendJournal(journal);
      for (const [index, item] of items.entries()) item.resolve(results[index] as PageResult);
    } catch (error) {
      this.#fatal ??= error;
      for (const item of items) item.reject(error);
    }
  }

  /**
   * Sign `templates` and check every event the signer returns against its template, signer and id (and a
   * sample of signatures): see `checkSignedEvents`. An event that does not match fails its page only.
   */
  async #signChecked(templates: EventTemplate[]): Promise<Array<NostrEvent | Error>> {
    const results = await this.#signSettled(templates);
    const pubkey = this.#pubkey ?? (await (this.signer as Signer).getPublicKey());
    this.#pubkey = pubkey;
    if (results.length !== templates.length) {
      const error = new Error(
        `the signer returned ${results.length} events for ${templates.length} templates`,
      );
      return templates.map(() => error);
    }
    return checkSignedEvents(templates, results, {
      pubkey,
      engine: await loadSigningEngine(),
      verifySignatures: this.options.verifySignatures,
    });
  }

  /**
   * Sign `templates`; where the signer refuses some of them (`event_refused`, see `Signer.signEvents`),
   * sign the two halves apart, down to the refused templates alone, which get their error in their place.
   * Any other error (token, key, lock, a bunker that is down) rejects: the run stops.
   */
  async #signSettled(templates: EventTemplate[]): Promise<Array<NostrEvent | Error>> {
    try {
      return await (this.signer as Signer).signEvents(templates);
    } catch (error) {
      if (!isSiegelError(error, 'event_refused')) throw error;
      if (templates.length === 1) return [error];
      const half = Math.ceil(templates.length / 2);
      const first = await this.#signSettled(templates.slice(0, half));
      return [...first, ...(await this.#signSettled(templates.slice(half)))];
    }
  }

  /** Resolves when fewer than `maxInFlight` batches are in flight (back-pressure for the caller). */
  async waitForCapacity(): Promise<void> {
    while (this.#inFlight.size >= this.options.maxInFlight) await Promise.race(this.#inFlight);
  }

  /** Send what is queued and wait for every batch. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.#analyzing.size > 0) {
        await Promise.all(this.#analyzing);
        continue;
      }
      this.flush();
      if (this.#inFlight.size === 0 && this.#queue.length === 0) return;
      await Promise.race(this.#inFlight);
    }
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

  #appendJournal(entries: Array<[string, SignCacheEntry]>): Promise<void> {
    const journal = this.#journal;
    if (!journal) return this.saveCache();
    this.#cacheWrite = this.#cacheWrite.then(async () => {
      await mkdir(dirname(this.options.cacheFile), { recursive: true });
      await journal.append(entries);
    });
    return this.#cacheWrite;
  }

  /**
   * Write the cache (atomically) if anything changed, then drop the journal; writes are serialised.
   * Nothing in a dry run.
   */
  saveCache(): Promise<void> {
    if (this.options.dryRun) return this.#cacheWrite;
    const dirty = this.#dirty;
    this.#dirty = false;
    const file = this.options.cacheFile;
    const journal = this.#journal;
    this.#cacheWrite = this.#cacheWrite.then(async () => {
      if (dirty) {
        await mkdir(dirname(file), { recursive: true });
        await writeSignCache(file, this.cache);
      }
      await journal?.remove();
    });
    return this.#cacheWrite;
  }

  /**
   * Wait for the relays' answers to this run's events and write the outbox (see `PublishSession.finish`);
   * `undefined` when nothing is published (no relays, a dry run). Called again, the same report.
   */
  finishPublishing(): Promise<PublishReport | undefined> {
    return this.#publishing ? this.#publishing.finish() : Promise.resolve(undefined);
  }

  /** The summary of everything recorded so far (with `published` once publishing finished). */
  summary(published?: PublishReport): SignSummary {
    const summary = summarize(this.reports, this.options.dryRun);
    return published ? { ...summary, published } : summary;
  }
}
