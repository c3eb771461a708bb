// The parse pool lives in page/ (not pipeline/) because both a signing run (pipeline/pump.ts) and a check of a
// signed directory (verify/) parse pages on it: a parse is about one page, whoever asks.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PageCheckReading, ParsedPage } from './analyze.js';
import type { PageOrigin } from './page-facts.js';

/**
 * @internal Message to a parse worker; the page's bytes are transferred, not copied. `task`: what the page
 * is read for — `sign` ({@link ParsedPage}, the default) or `check` ({@link PageCheckReading}).
 */
export interface ParseRequest {
  id: number;
  buffer: ArrayBuffer;
  selector: string;
  task?: 'sign' | 'check';
  /** Where the page lives, for its load list (see `PageOrigin`). */
  origin?: PageOrigin | undefined;
}

/** @internal Answer of a parse worker; the bytes come back for `sign` (a check needs them no more). */
export interface ParseResponse {
  id: number;
  buffer?: ArrayBuffer;
  parsed?: ParsedPage;
  reading?: PageCheckReading;
  error?: string;
}

interface Job {
  resolve(response: ParseResponse): void;
  reject(error: Error): void;
}

const WORKER_URL = new URL('./parse-worker.js', import.meta.url);
const WORKER_YOUNG_MB = 8;

/**
 * Worker threads that parse pages while the main thread reads, hashes, signs and writes. Pages go to the
 * least busy worker; their bytes are transferred both ways. How many pages it holds at once is the
 * caller's to bound (page-flow.ts runs it under a `p-queue`): p-queue runs promises, not threads, so the
 * workers and their messages stay here.
 */
export class ParsePool {
  readonly #workers: Array<{ worker: Worker; busy: number }> = [];
  readonly #jobs = new Map<number, Job>();
  readonly #selector: string;
  #next = 0;
  #failure: Error | undefined;

  readonly #size: number;

  private constructor(size: number, selector: string) {
    this.#selector = selector;
    this.#size = size;
  }

  /** Workers start with the first page to parse: a run that parses nothing starts none. */
  #start(): void {
    for (let index = 0; index < this.#size; index++) {
      // A parse needs little heap; a small young generation keeps each worker's memory low.
      const worker = new Worker(WORKER_URL, {
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      });
      const slot = { worker, busy: 0 };
      worker.on('message', (response: ParseResponse) => {
        slot.busy--;
        this.#settle(response);
      });
      worker.on('error', (error) => this.#fail(error));
      this.#workers.push(slot);
    }
  }

  /**
   * A pool of `size` workers, or `undefined` when `size` is 0 or the worker script is not there (running
   * from TypeScript sources): the caller then parses in its own thread.
   */
  static create(size: number, selector: string): ParsePool | undefined {
    if (size < 1 || !WORKER_URL.protocol.startsWith('file') || !existsSync(fileURLToPath(WORKER_URL)))
      return undefined;
    return new ParsePool(size, selector);
  }

  /** Parse a page for signing. Its buffer is transferred to a worker and handed back in the result. */
  async analyze(bytes: Buffer, origin?: PageOrigin): Promise<{ parsed: ParsedPage; bytes: Buffer }> {
    const response = await this.#post(bytes, 'sign', origin);
    return { parsed: response.parsed as ParsedPage, bytes: Buffer.from(response.buffer as ArrayBuffer) };
  }

  /**
   * Read a page for checking its signature (`siegel verify`): what {@link PageCheckReading} holds. Its buffer
   * is transferred to the worker (or copied, when it is a view) and stays there: the worker frees it at its
   * next collection, while handed back it would wait for one of this thread's, which are rare.
   */
  async read(bytes: Buffer, origin?: PageOrigin): Promise<PageCheckReading> {
    return (await this.#post(bytes, 'check', origin)).reading as PageCheckReading;
  }

  #post(bytes: Buffer, task: 'sign' | 'check', origin?: PageOrigin): Promise<ParseResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#workers.length === 0) this.#start();
    // Transfer only a buffer the page owns entirely (readFile's are); copy anything else.
    const owned =
      bytes.byteOffset === 0 &&
      bytes.buffer.byteLength === bytes.length &&
      bytes.buffer instanceof ArrayBuffer;
    const buffer = owned ? (bytes.buffer as ArrayBuffer) : new Uint8Array(bytes).buffer;
    const id = this.#next++;
    const slot = this.#workers.reduce((best, candidate) => (candidate.busy < best.busy ? candidate : best));
    slot.busy++;
    return new Promise((resolve, reject) => {
      this.#jobs.set(id, { resolve, reject });
      const request = { id, buffer, selector: this.#selector, task, origin } satisfies ParseRequest;
      slot.worker.postMessage(request, [buffer]);
    });
  }

  /** Stop the workers. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.map(({ worker }) => worker.terminate()));
  }

  #settle(response: ParseResponse): void {
    const job = this.#jobs.get(response.id);
    if (!job) return;
    this.#jobs.delete(response.id);
    if (response.parsed || response.reading) job.resolve(response);
    else job.reject(new Error(response.error ?? 'parse failed'));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const job of this.#jobs.values()) job.reject(error);
    this.#jobs.clear();
  }
}
