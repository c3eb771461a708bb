import type { NostrEvent } from 'nostr-tools/core';
import { manifestAddress } from '../manifest/site-manifest.js';
import { outboxFileOf } from '../nostr/publish-outbox.js';
import { type PublishReport, PublishSession } from '../nostr/publish-session.js';
import type { Signer } from '../nostr/signer.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { openSigner } from '../signer/create-signer.js';
import {
  applyBlock,
  checkBlock,
  type DecideContext,
  notWritten,
  type PageResult,
  type SignRequest,
  type SignRunSeams,
  signedEntry,
} from './decide.js';
import { RunCache } from './run-cache.js';
import { BatchSigner } from './sign-batches.js';
import { type PageReport, type SignSummary, summarize } from './summary.js';

/**
 * What one signing run holds from start to end: the signer (checked first), the cache, the batches at the
 * signer, the publishing to the relays, and the report of every page. The pages themselves move through
 * `PageFlow` (page-flow.ts); this is what they consult and where they end: {@link record}.
 */
export class SigningRun {
  readonly options: ResolvedSignSiteOptions;
  readonly cache: RunCache;
  readonly signer: Signer | undefined;
  /** The signer's public key (hex), asked before any event is built; `undefined` without a signer. */
  readonly pubkey: string | undefined;
  readonly decide: DecideContext;
  readonly reports: PageReport[] = [];
  /**
   * The files this run wrote through its I/O thread (pages, verify pages, events), by absolute path, with
   * the SHA-256 of what was written: the site manifest takes their hashes from here instead of reading
   * them back (pipeline/sign-manifest.ts).
   */
  readonly written = new Map<string, string>();
  /** Collects changed pages into batches for the signer (none in a dry run or without a signer). */
  readonly batches: BatchSigner<SignRequest, PageResult> | undefined;
  /** Publishing to the relays (when relays are configured and this is no dry run). */
  readonly #publishing: PublishSession | undefined;
  readonly #ownsSigner: boolean;
  #fatal: unknown;
  /** The signer's probe, once asked for (see {@link proveSigner}). */
  #proven: Promise<void> | undefined;

  private constructor(
    options: ResolvedSignSiteOptions,
    opened: { signer: Signer | undefined; pubkey: string | undefined; owned: boolean },
    cache: RunCache,
    publishing: PublishSession | undefined,
    seams: SignRunSeams | undefined,
  ) {
    this.options = options;
    this.signer = opened.signer;
    this.pubkey = opened.pubkey;
    const { kind, d } = options.manifest;
    this.cache = cache;
    this.#ownsSigner = opened.owned;
    this.#publishing = publishing;
    const signs = !options.dryRun && opened.signer !== undefined;
    this.decide = {
      options,
      cache,
      signs,
      address: opened.pubkey === undefined ? undefined : manifestAddress(kind, opened.pubkey, d),
      blockChecks: { proven: 0, readBack: 0 },
      ...(seams ? { seams } : {}),
    };
    this.batches =
      signs && opened.signer
        ? new BatchSigner<SignRequest, PageResult>({
            signer: opened.signer,
            pubkey: opened.pubkey,
            batchSize: options.batchSize,
            maxInFlight: options.maxInFlight,
            verifySignatures: options.verifySignatures,
            templateOf: (request) => request.template,
            onSigned: (signed) => this.#keep(signed),
          })
        : undefined;
  }

  /**
   * Check the signer (before anything is written: a missing token, an unknown or locked key, a bunker that
   * is down all throw here), read the cache and the outbox, and send the outbox's due events.
   * @throws {SiegelError} from the signer; `invalid_options` for a bad relay.
   */
  static async open(options: ResolvedSignSiteOptions, seams?: SignRunSeams): Promise<SigningRun> {
    const opened = await openSigner(options);
    try {
      const cache = await RunCache.open(options, opened.pubkey);
      let publishing: PublishSession | undefined;
      if (options.relays.length > 0 && !options.dryRun && opened.signer) {
        const { session, warning } = await PublishSession.open({
          relays: options.relays,
          outboxFile: outboxFileOf(options.cacheFile),
          budgetMs: options.publishTimeoutMs,
        });
        if (warning) options.logger.warn(warning);
        publishing = session;
        // Earlier runs' events that some relay has not taken yet (an interrupted run's: all of them), once
        // their next try has come.
        publishing.sendOutbox({ dueOnly: true });
      }
      return new SigningRun(options, opened, cache, publishing, seams);
    } catch (error) {
      if (opened.owned) await opened.signer?.close?.();
      throw error;
    }
  }

  /**
   * A signed batch, before any of its pages is written: its events go to the outbox's journal (then to the
   * relays), its cache entries to the cache's journal — so a page the cache calls signed always has its
   * event in the outbox or on its relays, whenever the run is killed. Returns each page's result.
   */
  async #keep(signed: Array<{ request: SignRequest; event: NostrEvent }>): Promise<PageResult[]> {
    const results: PageResult[] = [];
    const entries: Parameters<RunCache['record']>[0] = [];
    const kept: NostrEvent[] = [];
    for (const { request, event } of signed) {
      const { input, place, bytePlace } = request;
      const output = applyBlock(this.options, input, place, bytePlace, event);
      // A page whose block's place the parse did not prove safe is read back; one that would not verify is
      // not written, its event not published (no page names it) and not cached.
      const problem = checkBlock(this.decide, request.splicesSafely, output, event, request.url);
      if (problem) {
        results.push(notWritten(problem));
        continue;
      }
      entries.push([request.path, signedEntry(request, event, output)]);
      results.push({ outcome: 'signed', output, event, url: request.url });
      kept.push(event);
    }
    await this.#publishing?.send(kept);
    await this.cache.record(entries);
    return results;
  }

  /** Send events (the site manifest) through the run's outbox to its relays, like the pages' events. */
  async publish(events: NostrEvent[]): Promise<void> {
    await this.#publishing?.send(events);
  }

  /** The first fatal error (a failed batch, a signer that cannot sign): the run must stop. */
  get fatal(): unknown {
    return this.#fatal ?? this.batches?.fatal;
  }

  /** A batch was signed in this run. */
  get signedAny(): boolean {
    return this.batches?.signedAny ?? false;
  }

  /**
   * Before a page that needs no new signature is written while nothing was signed yet: let the signer prove
   * that it signs now (`Signer.probe`; a NIP-46 signer with a locked key fails here), so that a run that
   * cannot sign writes nothing. Its error is the run's fatal error.
   */
  proveSigner(): Promise<void> {
    const signer = this.signer;
    if (!signer?.probe || this.options.dryRun || this.signedAny) return Promise.resolve();
    this.#proven ??= signer.probe().catch((error: unknown) => {
      this.#fatal ??= error;
      throw error;
    });
    return this.#proven;
  }

  /** The end of a page's trip: a line in the summary. */
  record(path: string, result: Pick<PageResult, 'outcome' | 'event' | 'error' | 'code'>): void {
    // Unchanged pages' events reached the relays in an earlier run (or wait in the outbox), unless the
    // relays changed since.
    if (this.cache.relaysChanged && result.outcome === 'unchanged' && result.event)
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

  /**
   * Wait for the relays' answers to this run's events — within the run's budget (`publishTimeoutMs`) — and
   * write the outbox (see `PublishSession.finish`); `undefined` when nothing is published (no relays, a
   * dry run). Called again, the same report.
   */
  finishPublishing(): Promise<PublishReport | undefined> {
    return this.#publishing ? this.#publishing.finish() : Promise.resolve(undefined);
  }

  /** Release the signer's connections (a NIP-46 signer's relays) when the run made the signer. */
  async closeSigner(): Promise<void> {
    if (this.#ownsSigner) await this.signer?.close?.();
  }

  /** The summary of everything recorded so far (with `published` once publishing finished). */
  summary(published?: PublishReport): SignSummary {
    const summary = {
      ...summarize(this.reports, this.options.dryRun),
      blockChecks: { ...this.decide.blockChecks },
    };
    return published ? { ...summary, published } : summary;
  }
}
