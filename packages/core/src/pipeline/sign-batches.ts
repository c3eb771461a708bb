import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import PQueue from 'p-queue';
import { isSiegelError } from '../errors.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import type { Signer } from '../nostr/signer.js';
import { checkSignedEvents } from '../signer/check-events.js';
import { formatByteSize } from '../text/byte-size.js';

/** One page waiting for its signature, and how to hand it back. */
interface Waiting<Request, Result> {
  request: Request;
  resolve(result: Result | Error): void;
  reject(error: unknown): void;
}

/** Options of {@link BatchSigner}. */
export interface BatchSignerOptions<Request, Result> {
  signer: Signer;
  /** The signer's pubkey, when known: every event it returns must carry it. */
  pubkey: string | undefined;
  /** Pages per signer request. */
  batchSize: number;
  /** Batches in flight at once. */
  maxInFlight: number;
  /** Schnorr signatures verified per batch (`Infinity`: all). */
  verifySignatures: number;
  /** The template of a request. */
  templateOf(request: Request): EventTemplate;
  /**
   * Called with a batch's signed requests before any of them is handed back: make them durable — the
   * outbox's journal, the cache's journal — so that a page is written only once its signature is kept.
   * Returns each one's result, in order.
   */
  onSigned(signed: Array<{ request: Request; event: NostrEvent }>): Promise<Result[]>;
}

/**
 * Collects the pages that need a signature into batches and keeps at most `maxInFlight` batches at the
 * signer (a `p-queue` with that concurrency): a full batch at once; while nothing is in flight, a quarter
 * batch too (so the signer starts early and the last batch, signed after reading ends, stays small);
 * anything when {@link flush} was asked for. A crash loses at most the batches in flight. The first error
 * that is not a refused event (a token, a key, a lock, a signer that is down) is fatal: every page waiting
 * gets it and the run stops.
 */
export class BatchSigner<Request, Result> {
  readonly #options: BatchSignerOptions<Request, Result>;
  readonly #batches: PQueue;
  #waiting: Array<Waiting<Request, Result>> = [];
  #flushRequested = false;
  #fatal: unknown;
  #pubkey: string | undefined;
  #signedAny = false;

  constructor(options: BatchSignerOptions<Request, Result>) {
    this.#options = options;
    this.#pubkey = options.pubkey;
    this.#batches = new PQueue({ concurrency: options.maxInFlight });
  }

  /** The first fatal error: the run must stop. */
  get fatal(): unknown {
    return this.#fatal;
  }

  /** A batch was signed. */
  get signedAny(): boolean {
    return this.#signedAny;
  }

  /**
   * Queue a page; resolves with its result (see `onSigned`), or with the Error that refused it alone (the
   * page fails, the others go on); rejects with the fatal error.
   */
  sign(request: Request): Promise<Result | Error> {
    if (this.#fatal) return Promise.reject(this.#fatal);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ request, resolve, reject });
      this.#cut();
    });
  }

  /** Resolves once fewer than `maxInFlight` batches are at the signer (back-pressure for the reader). */
  async room(): Promise<void> {
    while (this.#batches.pending + this.#batches.size >= this.#options.maxInFlight) await this.#settledOne();
  }

  /** Send everything waiting now, and wait until every batch is signed. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.#waiting.length > 0) {
        this.#flushRequested = true;
        this.#cut();
      }
      if (this.#waiting.length === 0 && this.#batches.size === 0 && this.#batches.pending === 0) return;
      await this.#settledOne();
    }
  }

  /** Resolves when a batch finishes (or at once when none is in flight). */
  #settledOne(): Promise<void> {
    if (this.#batches.pending === 0 && this.#batches.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#batches.once('next', () => resolve()));
  }

  /** Cut batches while fewer than `maxInFlight` are at the signer (see the class comment). */
  #cut(): void {
    const { batchSize, maxInFlight } = this.#options;
    const early = Math.min(batchSize, Math.max(50, Math.ceil(batchSize / 4)));
    while (this.#waiting.length > 0) {
      const inFlight = this.#batches.pending + this.#batches.size;
      if (inFlight >= maxInFlight) break;
      const ready =
        this.#flushRequested ||
        this.#waiting.length >= batchSize ||
        (inFlight === 0 && this.#waiting.length >= early);
      if (!ready) break;
      const items = this.#waiting.splice(0, batchSize);
      void this.#batches.add(() => this.#signBatch(items)).finally(() => this.#cut());
    }
    if (this.#waiting.length === 0) this.#flushRequested = false;
  }

  async #signBatch(items: Array<Waiting<Request, Result>>): Promise<void> {
    try {
      if (this.#fatal) throw this.#fatal;
      const events = await this.#signChecked(items.map((item) => this.#options.templateOf(item.request)));
      const signed: Array<{ request: Request; event: NostrEvent }> = [];
      for (const [index, item] of items.entries()) {
        const event = events[index] as NostrEvent | Error;
        if (!(event instanceof Error)) signed.push({ request: item.request, event });
      }
      let results: Result[] = [];
      if (signed.length > 0) {
        this.#signedAny = true;
        results = await this.#options.onSigned(signed);
      }
      let next = 0;
      for (const [index, item] of items.entries()) {
        const event = events[index] as NostrEvent | Error;
        if (!(event instanceof Error)) {
          item.resolve(results[next++] as Result);
          continue;
        }
        const size = Buffer.byteLength(JSON.stringify(this.#options.templateOf(item.request)), 'utf8');
        item.resolve(new Error(`its event (${formatByteSize(size)}) was not signed: ${event.message}`));
      }
    } catch (error) {
      this.#fatal ??= error;
      for (const item of items) item.reject(error);
      // Pages still waiting never reach the signer now.
      for (const item of this.#waiting.splice(0)) item.reject(error);
    }
  }

  /**
   * Sign `templates` and check every event the signer returns against its template, signer and id (and a
   * sample of signatures): see `checkSignedEvents`. An event that does not match fails its page only.
   */
  async #signChecked(templates: EventTemplate[]): Promise<Array<NostrEvent | Error>> {
    const results = await this.#signSettled(templates);
    const pubkey = this.#pubkey ?? (await this.#options.signer.getPublicKey());
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
      verifySignatures: this.#options.verifySignatures,
    });
  }

  /**
   * Sign `templates`; where the signer refuses some of them (`event_refused`, see `Signer.signEvents`),
   * sign the two halves apart, down to the refused templates alone, which get their error in their place.
   * Any other error (token, key, lock, a bunker that is down) rejects: the run stops.
   */
  async #signSettled(templates: EventTemplate[]): Promise<Array<NostrEvent | Error>> {
    try {
      return await this.#options.signer.signEvents(templates);
    } catch (error) {
      if (!isSiegelError(error, 'event_refused')) throw error;
      if (templates.length === 1) return [error];
      const half = Math.ceil(templates.length / 2);
      const first = await this.#signSettled(templates.slice(0, half));
      return [...first, ...(await this.#signSettled(templates.slice(half)))];
    }
  }
}
