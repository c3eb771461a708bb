import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { ChunkReader, type FileIo, FileWorker, inProcessFileIo, PageTooLargeError } from '../fs/file-io.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { checkEncoding, sniffEncoding } from '../page/encoding.js';
import { ParsePool } from '../page/parse-pool.js';
import { VerifyOutput } from '../verify/verify-output.js';
import { createProgressLine, type ProgressLine } from './progress-line.js';
import type { PageResult, SigningSession } from './session.js';
import { TaskPool } from './task-pool.js';

/** Pages read at once (synchronously, see `ChunkReader`) before they are processed. */
const READ_CHUNK = 32;
/** Page writes queued at once (each a job for the I/O thread, which batches them). */
const WRITE_CONCURRENCY = 64;
/** Pages handed to the parse workers ahead of the main thread. */
const PARSE_AHEAD = 32;
/** Runs with fewer pages parse on the main thread: workers pay off only with pages to parse. */
const PARSE_POOL_MIN_PAGES = 64;

/**
 * Moves the pages of one run through its stages, and is the one place that decides how much of the run
 * is in flight: pages are read in synchronous chunks on the main thread (`ChunkReader`), parsed ahead on
 * worker threads (`ParsePool`, at most {@link PARSE_AHEAD} pages waiting), signed in batches by the session
 * (at most `maxInFlight` batches), and written on the I/O thread (`FileWorker`, at most
 * {@link WRITE_CONCURRENCY} pages waiting), each with its verify page. Reading waits whenever one of
 * those three is full, so memory stays bounded however large the site.
 */
export class PagePump {
  readonly #root: string;
  readonly #options: ResolvedSignSiteOptions;
  readonly #session: SigningSession;
  readonly #writes = new TaskPool(WRITE_CONCURRENCY);
  readonly #progress: ProgressLine;
  readonly #pool: ParsePool | undefined;
  readonly #io: FileIo;
  readonly #verify: VerifyOutput;
  readonly #pending: Array<Promise<void>> = [];
  #signedAny = false;

  constructor(root: string, options: ResolvedSignSiteOptions, session: SigningSession, total: number) {
    this.#root = root;
    this.#options = options;
    this.#session = session;
    this.#progress = createProgressLine(total, { enabled: options.progress });
    // A warm run parses (almost) nothing: start no workers for small runs.
    this.#pool =
      total >= PARSE_POOL_MIN_PAGES ? ParsePool.create(options.parseWorkers, options.selector) : undefined;
    // Writes go to a thread of their own, with plain system calls (see FileWorker).
    this.#io = FileWorker.create() ?? inProcessFileIo;
    this.#verify = new VerifyOutput(root, options.site, options.selector, this.#io);
  }

  /** Read every page and hand it on; returns once the last page is read (not yet signed or written). */
  async pump(paths: string[]): Promise<void> {
    const session = this.#session;
    const pool = this.#pool;
    const analyze = pool ? (bytes: Buffer) => pool.analyze(bytes) : undefined;
    const reader = new ChunkReader({ maxBytes: this.#options.maxPageBytes });
    for (let start = 0; start < paths.length; start += READ_CHUNK) {
      // Views into one reused buffer, valid until the next chunk is read: processPage copies what it keeps.
      const chunk = reader.read(paths.slice(start, start + READ_CHUNK).map((path) => join(this.#root, path)));
      for (const [offset, bytes] of chunk.entries()) {
        const path = paths[start + offset] as string;
        if (session.fatal) return;
        if (bytes instanceof PageTooLargeError) {
          this.#record(path, { outcome: 'failed', error: bytes.message });
          continue;
        }
        if (bytes instanceof Error) {
          this.#record(path, { outcome: 'failed', error: `cannot read: ${bytes.message}` });
          continue;
        }
        if (!isUtf8(bytes)) {
          // Say why when the page names its own encoding (a UTF-16 byte order mark, a `<meta charset>`).
          const declared = sniffEncoding(bytes);
          const reason =
            declared.source === 'none' || declared.encoding === 'utf-8' ? undefined : checkEncoding(bytes);
          const error = reason ? `not valid UTF-8: ${reason.message}` : 'not valid UTF-8';
          this.#record(path, { outcome: 'failed', error });
          continue;
        }
        await session.waitForCapacity();
        // Read on only while few writes wait: every queued page holds its output (and its verify files) in
        // memory, and a long queue also makes V8 grow its young generation — peak RSS then wanders.
        await this.#writes.waitForRoom(WRITE_CONCURRENCY);
        if (pool) await pool.waitForRoom(PARSE_AHEAD);
        const result = session.processPage(path, bytes, {
          ...(analyze ? { analyze } : {}),
          owned: reader.owns(bytes),
        });
        this.#pending.push(result.then((final) => this.#write(path, final)).catch(() => {}));
      }
    }
  }

  /**
   * Wait until every page read is signed and written, then write the shared verify script (when anything
   * was signed) and close the verify output.
   */
  async drain(): Promise<void> {
    await this.#session.drain();
    await Promise.all(this.#pending);
    await this.#writes.idle();
    this.#progress.done();
    if (this.#signedAny) await this.#verify.writeScript();
    await this.#verify.finish();
  }

  /** Stop the threads (after {@link drain}, or after a failure). */
  async close(): Promise<void> {
    await this.#writes.idle();
    await Promise.all([this.#pool?.close(), this.#io.close()]);
  }

  #record(path: string, result: Pick<PageResult, 'outcome' | 'event' | 'error'>): void {
    this.#session.record(path, result);
    this.#progress.tick();
  }

  /** Queue a page's output and its verify page for the I/O thread; record the outcome once written. */
  #write(path: string, result: PageResult): void {
    if (this.#options.dryRun || (result.output === undefined && !result.event)) {
      this.#record(path, result);
      return;
    }
    this.#signedAny ||= result.event !== undefined;
    this.#writes.add(async () => {
      try {
        // A page rewritten without a new signature (new relay hints, a rebuilt page) is written only once the
        // signer has shown it signs: a run that cannot sign must leave the site as it was.
        if (result.outcome === 'unchanged' && result.output !== undefined) await this.#session.proveSigner();
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
    });
  }
}
