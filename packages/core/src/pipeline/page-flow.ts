import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { ChunkReader, type FileIo, FileWorker, inProcessFileIo, PageTooLargeError } from '../fs/file-io.js';
import { type ParsedPage, parsePageForSigning } from '../page/analyze.js';
import { checkEncoding, sniffEncoding } from '../page/encoding.js';
import { pageUrl } from '../page/page-event.js';
import { ParsePool } from '../page/parse-pool.js';
import { createProgressLine, type ProgressLine } from '../text/progress-line.js';
import { VerifyOutput } from '../verify/verify-output.js';
import {
  decideByBytes,
  decideByHash,
  isSignRequest,
  type PageResult,
  type SignRequest,
  type ToParse,
} from './decide.js';
import type { SigningRun } from './signing-run.js';

/** Pages read at once (synchronously, see `ChunkReader`) before they are processed. */
const READ_CHUNK = 32;
/** Page writes in flight at once (each a job for the I/O thread, which batches them). */
const WRITE_CONCURRENCY = 64;
/** Pages at the parse workers at once, ahead of the main thread. */
const PARSE_AHEAD = 32;
/** Runs with fewer pages parse on the main thread: workers pay off only with pages to parse. */
const PARSE_POOL_MIN_PAGES = 64;
/**
 * Pages parsed on the main thread before the workers start: a run that parses a few pages (a warm run with
 * one changed page) never pays for a worker thread (about 100 MB of peak memory).
 */
const PARSE_INLINE_FIRST = 16;

/**
 * Moves every page of one run through its trip, in one direction: read (synchronous chunks, `ChunkReader`)
 * → decide by its bytes (unchanged pages stop here: most of a warm run) → parse (worker threads,
 * `ParsePool`) → decide by its hash (cached block, or a new event) → sign (batches, `BatchSigner`) →
 * write (the I/O thread, `FileWorker`, with its verify page) → record. Each stage after reading is a
 * `p-queue` with its own concurrency, and {@link admit} — the one place that bounds a run's memory — lets
 * the next page be read only while none of them has a backlog, however large the site.
 */
export class PageFlow {
  readonly #root: string;
  readonly #run: SigningRun;
  readonly #progress: ProgressLine;
  readonly #pool: ParsePool | undefined;
  readonly #io: FileIo;
  readonly #verify: VerifyOutput;
  /** Parsing and deciding: a page leaves it decided (and, if it needs a signature, queued at the signer). */
  readonly #parses: PQueue;
  readonly #writes = new PQueue({ concurrency: WRITE_CONCURRENCY });
  /** Every page's whole trip (unbounded: {@link admit} bounds what enters), to wait for the last. */
  readonly #trips = new PQueue();
  #signedAny = false;
  #parsedInline = 0;

  constructor(root: string, run: SigningRun, total: number) {
    const { options } = run;
    this.#root = root;
    this.#run = run;
    this.#progress = createProgressLine(total, { enabled: options.progress });
    // A warm run parses (almost) nothing: start no workers for small runs.
    this.#pool =
      total >= PARSE_POOL_MIN_PAGES ? ParsePool.create(options.parseWorkers, options.selector) : undefined;
    this.#parses = new PQueue({ concurrency: this.#pool ? PARSE_AHEAD : 1 });
    // Writes go to a thread of their own, with plain system calls (see FileWorker).
    this.#io = notingHashes(FileWorker.create() ?? inProcessFileIo, run.written);
    this.#verify = new VerifyOutput(
      root,
      options.site,
      options.selector,
      this.#io,
      options.mark !== undefined,
    );
  }

  /** Read every page and send it on its trip; returns once the last page is read (not yet signed or written). */
  async read(paths: string[]): Promise<void> {
    const run = this.#run;
    const reader = new ChunkReader({ maxBytes: run.options.maxPageBytes });
    for (let start = 0; start < paths.length; start += READ_CHUNK) {
      // Views into one reused buffer, valid until the next chunk is read: decideByBytes copies what it keeps.
      const chunk = reader.read(paths.slice(start, start + READ_CHUNK).map((path) => join(this.#root, path)));
      for (const [offset, bytes] of chunk.entries()) {
        const path = paths[start + offset] as string;
        if (run.fatal) return;
        const unreadable = describeUnreadable(bytes);
        if (unreadable !== undefined) {
          this.#record(path, { outcome: 'failed', error: unreadable });
          continue;
        }
        await this.#admit();
        const page = bytes as Buffer;
        let decided: PageResult | ToParse;
        try {
          decided = decideByBytes(run.decide, path, page, reader.owns(page));
        } catch (error) {
          decided = failed(error);
        }
        void this.#trips.add(() => this.#travel(path, decided));
      }
    }
  }

  /**
   * The one place that decides how much of the run is in memory: the next page is read only while fewer
   * than `maxInFlight` batches are at the signer, no write and no parse waits for a slot. Every page in
   * a queue holds its bytes (and a written one its output and verify files); a long queue also makes V8
   * grow its young generation, and peak RSS then wanders.
   */
  async #admit(): Promise<void> {
    await this.#run.batches?.room();
    if (this.#writes.size > 0) await this.#writes.onEmpty();
    if (this.#parses.size > 0) await this.#parses.onEmpty();
  }

  /** A page's trip after its bytes were decided: parse, decide by hash, sign, write, record. */
  async #travel(path: string, decided: PageResult | ToParse): Promise<void> {
    let result: PageResult;
    try {
      result = 'outcome' in decided ? decided : await (await this.#parse(decided)).next;
    } catch (error) {
      result = failed(error);
    }
    await this.#writes.add(() => this.#write(path, result));
  }

  /**
   * Parse a page and decide it: the task ends once the page is decided — queued at the signer when it
   * needs a signature (`next` then waits for its batch), so an idle parse queue means every page read is
   * decided. (Wrapped in an object: a promise would be flattened into the task's own.)
   */
  #parse(page: ToParse): Promise<{ next: Promise<PageResult> }> {
    const pool = this.#pool;
    const { options } = this.#run;
    const inline = !pool || this.#parsedInline < PARSE_INLINE_FIRST;
    if (inline) this.#parsedInline++;
    return this.#parses.add(async () => {
      const origin = { address: pageUrl(options.site, page.path), siteUrl: `${options.site}/` };
      const { parsed, bytes }: { parsed: ParsedPage; bytes: Buffer } = !inline
        ? await (pool as ParsePool).analyze(page.input, origin)
        : { parsed: parsePageForSigning(page.input, options.selector, origin), bytes: page.input };
      const decided = decideByHash(this.#run.decide, { ...page, input: bytes }, parsed);
      return { next: isSignRequest(decided) ? this.#sign(decided) : Promise.resolve(decided) };
    });
  }

  async #sign(request: SignRequest): Promise<PageResult> {
    const outcome = await (this.#run.batches as NonNullable<SigningRun['batches']>).sign(request);
    return outcome instanceof Error ? failed(outcome) : outcome;
  }

  /**
   * Wait until every page read is parsed, signed (the last, partial batch goes now), written and recorded;
   * then write the shared verify script (when anything was signed) and close the verify output.
   */
  async drain(): Promise<void> {
    await this.#parses.onIdle();
    await this.#run.batches?.drain();
    await this.#trips.onIdle();
    await this.#writes.onIdle();
    this.#progress.done();
    if (this.#signedAny) await this.#verify.writeScript();
    await this.#verify.finish();
  }

  /** Stop the threads (after {@link drain}, or after a failure); a second call does nothing more. */
  async close(): Promise<void> {
    await this.#writes.onIdle();
    await Promise.all([this.#pool?.close(), this.#io.close()]);
  }

  #record(path: string, result: Pick<PageResult, 'outcome' | 'event' | 'error' | 'code'>): void {
    this.#run.record(path, result);
    this.#progress.tick();
  }

  /** Write a page's output and its verify page on the I/O thread; record the outcome once written. */
  async #write(path: string, result: PageResult): Promise<void> {
    if (this.#run.options.dryRun || (result.output === undefined && !result.event)) {
      this.#record(path, result);
      return;
    }
    this.#signedAny ||= result.event !== undefined;
    try {
      // A page rewritten without a new signature (new relay hints, a rebuilt page) is written only once the
      // signer has shown it signs: a run that cannot sign must leave the site as it was.
      if (result.outcome === 'unchanged' && result.output !== undefined) await this.#run.proveSigner();
      // The page's output buffer goes to the I/O thread (detached here): nothing reads it afterwards.
      await Promise.all([
        result.output !== undefined &&
          this.#io.run([{ op: 'replace', path: join(this.#root, path), data: result.output }]),
        result.event && result.url && this.#verify.writePage(result.event, result.url),
      ]);
      this.#record(path, result);
    } catch (error) {
      this.#record(path, { outcome: 'failed', error: `cannot write: ${(error as Error).message}` });
    }
  }
}

/** `io`, noting in `written` the hash of every file it writes (absolute path → SHA-256 hex), once written. */
function notingHashes(io: FileIo, written: Map<string, string>): FileIo {
  return {
    async run(ops) {
      const hashes = await io.run(ops);
      for (const [index, op] of ops.entries())
        if (op.op !== 'mkdir') written.set(op.path, hashes[index] as string);
      return hashes;
    },
    close: () => io.close(),
  };
}

/** A failed page's result. */
function failed(error: unknown): PageResult {
  return { outcome: 'failed', output: undefined, error: (error as Error)?.message ?? String(error) };
}

/** Why a page read cannot be signed (too large, unreadable, not UTF-8), or `undefined` when it can. */
function describeUnreadable(bytes: Buffer | Error): string | undefined {
  if (bytes instanceof PageTooLargeError) return bytes.message;
  if (bytes instanceof Error) return `cannot read: ${bytes.message}`;
  if (isUtf8(bytes)) return undefined;
  // Say why when the page names its own encoding (a UTF-16 byte order mark, a `<meta charset>`).
  const declared = sniffEncoding(bytes);
  const reason =
    declared.source === 'none' || declared.encoding === 'utf-8' ? undefined : checkEncoding(bytes);
  return reason ? `not valid UTF-8: ${reason.message}` : 'not valid UTF-8';
}
