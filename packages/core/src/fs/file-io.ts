import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describeByteSize } from '../text/byte-size.js';
import { mkdirFast, writeFileAtomic, writeFileFast } from './atomic-write.js';

/**
 * One file operation of a signing run: `replace` writes atomically (temp file + rename: the pages),
 * `write` in place (the verify files, which a marker protects), `mkdir` with parents.
 */
export type FileOp =
  | { op: 'replace'; path: string; data: string | Uint8Array }
  | { op: 'write'; path: string; data: string | Uint8Array }
  | { op: 'mkdir'; path: string };

/** Files larger than this are read into a buffer of their own (see {@link ChunkReader.owns}). */
const OWN_BUFFER_AT = 1 << 20;

/** The error in place of a page larger than the reader's limit (it is not read). */
export class PageTooLargeError extends Error {
  readonly code = 'page_too_large';
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      `page too large: ${describeByteSize(size)}, more than the limit of ${describeByteSize(limit)}; it was not read — raise the limit with \`maxPageBytes\`, \`--max-page-bytes\` or SIEGEL_MAX_PAGE_BYTES`,
    );
    this.name = 'PageTooLargeError';
  }
}

/**
 * Reads pages in chunks, synchronously, into one reused buffer. A signing run reads the pages a build has
 * just written (in the page cache): a plain system call per step costs a fraction of a round trip through
 * libuv's thread pool for each open, stat, read and close, and blocks the thread for well under a
 * millisecond per chunk. Reusing the memory spares the garbage collector a page-sized buffer per page.
 * A file over 1 MiB gets a buffer of its own instead, which the caller may keep ({@link owns}): no copy of a
 * large page, and the shared buffer never grows to the largest page of a run. A file over `maxBytes` is not
 * read: a {@link PageTooLargeError} stands in its place.
 */
export class ChunkReader {
  #slab = Buffer.allocUnsafeSlow(1 << 20);
  readonly #owned = new WeakSet<Buffer>();
  readonly #maxBytes: number;

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  }

  /** True for a buffer {@link read} gave that is the file's own (valid after the next call, not reused). */
  owns(bytes: Buffer): boolean {
    return this.#owned.has(bytes);
  }

  /**
   * Whole files, as views that are valid **until the next call** (copy what must live longer, unless
   * {@link owns}); a file that cannot be read gives its `Error` in its place.
   */
  read(paths: string[]): Array<Buffer | Error> {
    const results: Array<Buffer | Error> = [];
    let used = 0;
    for (const path of paths) {
      let fd: number | undefined;
      try {
        fd = openSync(path, 'r');
        const size = fstatSync(fd).size;
        if (size > this.#maxBytes) {
          results.push(new PageTooLargeError(size, this.#maxBytes));
          continue;
        }
        if (size > OWN_BUFFER_AT) {
          const own = this.#readOwn(fd, size);
          if (own instanceof Buffer) this.#owned.add(own);
          results.push(own);
          continue;
        }
        let start = used;
        // One byte more than the size, so that a single read also sees the end of the file.
        let room = size + 1;
        for (;;) {
          if (this.#slab.length - used < room) {
            // Views handed out earlier in this chunk keep the old buffer alive; this page moves to a new one.
            const grown = Buffer.allocUnsafeSlow(Math.max(this.#slab.length * 2, used - start + room));
            this.#slab.copy(grown, 0, start, used);
            used -= start;
            start = 0;
            this.#slab = grown;
          }
          const read = readSync(fd, this.#slab, used, this.#slab.length - used, null);
          if (read === 0) break;
          used += read;
          room = 64 * 1024;
        }
        if (used - start > this.#maxBytes) results.push(new PageTooLargeError(used - start, this.#maxBytes));
        else results.push(this.#slab.subarray(start, used));
      } catch (error) {
        results.push(error as Error);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    }
    return results;
  }

  /** A file of `size` bytes (by fstat) into a buffer of its own; one that grew meanwhile is read whole. */
  #readOwn(fd: number, size: number): Buffer | PageTooLargeError {
    let buffer = Buffer.allocUnsafeSlow(size);
    let used = 0;
    for (;;) {
      if (used === buffer.length) {
        // Read on: the file may have grown since fstat.
        const more = Buffer.allocUnsafeSlow(64 * 1024);
        const read = readSync(fd, more, 0, more.length, null);
        if (read === 0) return buffer;
        if (used + read > this.#maxBytes) return new PageTooLargeError(used + read, this.#maxBytes);
        buffer = Buffer.concat([buffer, more.subarray(0, read)]);
        used += read;
        continue;
      }
      const read = readSync(fd, buffer, used, buffer.length - used, null);
      if (read === 0) return buffer.subarray(0, used); // it shrank
      used += read;
    }
  }
}

/** The writes of a signing run. */
export interface FileIo {
  /**
   * Run `ops` in order; rejects with the first failure (the later ops are not run). Resolves with the
   * SHA-256 (hex) of each op's data as written, `''` for a mkdir: the site manifest lists every file of the
   * output by its hash, and the run's own files need not be read back for it.
   */
  run(ops: FileOp[]): Promise<string[]>;
  /** Let go of threads (after every `run` has settled). */
  close(): Promise<void>;
}

/** @internal SHA-256 (hex) of a file's data: what {@link FileIo.run} reports (both threads), and how the site manifest hashes the files it reads. */
export function hashWritten(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

async function runOp(op: FileOp): Promise<string> {
  if (op.op === 'mkdir') {
    await mkdirFast(op.path);
    return '';
  }
  if (op.op === 'replace') await writeFileAtomic(op.path, op.data);
  else await writeFileFast(op.path, op.data);
  return hashWritten(op.data);
}

/** {@link FileIo} on libuv's thread pool, one request per system call (what runs where workers cannot). */
export const inProcessFileIo: FileIo = {
  async run(ops) {
    const hashes: string[] = [];
    for (const op of ops) hashes.push(await runOp(op));
    return hashes;
  },
  async close() {},
};

/**
 * @internal A job as sent to the I/O thread, flat (`[id, kind, path, data, kind, path, data, …]`, kind from
 * {@link OP_CODES}, data `''` for a mkdir): an array of primitives clones several times faster than objects,
 * whose every key is serialized again.
 */
export type WireJob = Array<number | string | Uint8Array>;
/** @internal Operation kinds in a {@link WireJob}. */
export const OP_CODES = { mkdir: 0, write: 1, replace: 2 } as const;
/** @internal The I/O thread's answer to one message: jobs done with their ops' hashes, and jobs failed with their error. */
export interface WireResults {
  done: Array<[id: number, hashes: string[]]>;
  failed: Array<[id: number, message: string, code: string | undefined]>;
}

function toWire(id: number, ops: FileOp[]): WireJob {
  const job: WireJob = [id];
  for (const op of ops) job.push(OP_CODES[op.op], op.path, op.op === 'mkdir' ? '' : op.data);
  return job;
}

// From dist/ and from src/ (tests) alike this is the built worker in dist/: a worker runs JavaScript.
const WORKER_URL = new URL('../../dist/fs/file-io-worker.js', import.meta.url);
/** Jobs sent to the thread in one message at most. */
const FLUSH_AT = 64;

interface Waiting {
  resolve(hashes: string[]): void;
  reject(error: Error): void;
}

/** A buffer whose whole memory a job may take along (transfer, not copy). */
function ownedArrayBuffer(data: string | Uint8Array): ArrayBuffer | undefined {
  if (typeof data === 'string') return undefined;
  const { buffer } = data;
  return buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === buffer.byteLength
    ? buffer
    : undefined;
}

/**
 * {@link FileIo} on a worker thread that makes plain synchronous system calls, jobs batched into few
 * messages. Per file this avoids a round trip through libuv's thread pool for every open, write, close,
 * rename and mkdir — most of what an unchanged page costs — and keeps those calls off the main thread.
 * Buffers a job owns whole travel without a copy: **a `Uint8Array` handed to {@link run} is detached**.
 */
export class FileWorker implements FileIo {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #queue: WireJob[] = [];
  #transfer = new Set<ArrayBuffer>();
  #flushScheduled = false;
  #next = 0;
  #failure: Error | undefined;

  private constructor() {
    this.#worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    this.#worker.on('message', ({ done, failed }: WireResults) => {
      for (const [id, hashes] of done) {
        this.#waiting.get(id)?.resolve(hashes);
        this.#waiting.delete(id);
      }
      for (const [id, message, code] of failed) {
        this.#waiting.get(id)?.reject(Object.assign(new Error(message), code ? { code } : {}));
        this.#waiting.delete(id);
      }
    });
    this.#worker.on('error', (error) =>
      this.#fail(new Error(`the file I/O thread failed: ${error.message || error.name}`, { cause: error })),
    );
    this.#worker.on('exit', () => this.#fail(new Error('the file I/O thread stopped')));
  }

  /** A worker, or `undefined` when the built worker script is missing (then use {@link inProcessFileIo}). */
  static create(): FileWorker | undefined {
    if (!WORKER_URL.protocol.startsWith('file') || !existsSync(fileURLToPath(WORKER_URL))) return undefined;
    return new FileWorker();
  }

  run(ops: FileOp[]): Promise<string[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#queue.push(toWire(id, ops));
      for (const op of ops) {
        const owned = op.op === 'mkdir' ? undefined : ownedArrayBuffer(op.data);
        if (owned) this.#transfer.add(owned);
      }
      if (this.#queue.length >= FLUSH_AT) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async close(): Promise<void> {
    this.#flush();
    await this.#worker.terminate();
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#queue.length === 0) return;
    const jobs = this.#queue;
    const transfer = [...this.#transfer];
    this.#queue = [];
    this.#transfer.clear();
    this.#worker.postMessage(jobs, transfer);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
  }
}
