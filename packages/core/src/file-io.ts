import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mkdirFast, writeFileAtomic, writeFileFast } from './atomic-write.js';

/**
 * One file operation of a signing run: `replace` writes atomically (temp file + rename: the pages),
 * `write` in place (the verify files, which a marker protects), `mkdir` with parents.
 */
export type FileOp =
  | { op: 'replace'; path: string; data: string | Uint8Array }
  | { op: 'write'; path: string; data: string | Uint8Array }
  | { op: 'mkdir'; path: string };

/**
 * Read whole files, synchronously: a file that cannot be read gives its `Error` in its place. A signing run
 * reads the pages a build has just written (in the page cache) in chunks: a plain system call per step
 * costs a fraction of a round trip through libuv's thread pool for each open, stat, read and close, and
 * blocks the thread for well under a millisecond per chunk.
 */
export function readFiles(paths: string[]): Array<Buffer | Error> {
  return paths.map((path) => {
    try {
      return readFileSync(path);
    } catch (error) {
      return error as Error;
    }
  });
}

/** The writes of a signing run. */
export interface FileIo {
  /** Run `ops` in order; rejects with the first failure (the later ops are not run). */
  run(ops: FileOp[]): Promise<void>;
  /** Let go of threads (after every `run` has settled). */
  close(): Promise<void>;
}

async function runOp(op: FileOp): Promise<void> {
  if (op.op === 'mkdir') await mkdirFast(op.path);
  else if (op.op === 'replace') await writeFileAtomic(op.path, op.data);
  else await writeFileFast(op.path, op.data);
}

/** {@link FileIo} on libuv's thread pool, one request per system call (what runs where workers cannot). */
export const inProcessFileIo: FileIo = {
  async run(ops) {
    for (const op of ops) await runOp(op);
  },
  async close() {},
};

/** @internal A job sent to the I/O thread. */
export interface FileJob {
  id: number;
  ops: FileOp[];
}
/** @internal The I/O thread's answer to a job. */
export interface FileJobResult {
  id: number;
  error?: { message: string; code?: string };
}

// From dist/ and from src/ (tests) alike this is the built worker in dist/: a worker runs JavaScript.
const WORKER_URL = new URL('../dist/file-io-worker.js', import.meta.url);
/** Jobs sent to the thread in one message at most. */
const FLUSH_AT = 64;

interface Waiting {
  resolve(result: FileJobResult): void;
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
  #queue: FileJob[] = [];
  #transfer: ArrayBuffer[] = [];
  #flushScheduled = false;
  #next = 0;
  #failure: Error | undefined;

  private constructor() {
    this.#worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    this.#worker.on('message', (results: FileJobResult[]) => {
      for (const result of results) {
        const waiting = this.#waiting.get(result.id);
        this.#waiting.delete(result.id);
        waiting?.resolve(result);
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

  async run(ops: FileOp[]): Promise<void> {
    const transfer: ArrayBuffer[] = [];
    for (const op of ops) {
      const owned = op.op === 'mkdir' ? undefined : ownedArrayBuffer(op.data);
      if (owned && !transfer.includes(owned)) transfer.push(owned);
    }
    const result = await this.#submit({ id: this.#next++, ops }, transfer);
    if (result.error) throw toError(result.error);
  }

  async close(): Promise<void> {
    this.#flush();
    await this.#worker.terminate();
  }

  #submit(job: FileJob, transfer: ArrayBuffer[]): Promise<FileJobResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.set(job.id, { resolve, reject });
      this.#queue.push(job);
      this.#transfer.push(...transfer);
      if (this.#queue.length >= FLUSH_AT) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#queue.length === 0) return;
    const jobs = this.#queue;
    const transfer = this.#transfer;
    this.#queue = [];
    this.#transfer = [];
    this.#worker.postMessage(jobs, transfer);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(this.#failure);
    this.#waiting.clear();
  }
}

function toError({ message, code }: { message: string; code?: string }): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}
