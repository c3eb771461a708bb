// analysis/ owns running the metadata analysis on worker threads, bounded in time and memory
// (`worker-pool.ts`, `analysis-worker.ts`), behind one `FileAnalyzer`.
import { SERVER_DEFAULTS } from '../config/config.js';
import { analyzeFile, type FileAnalysis } from '../metadata/analyze-file.js';
import { pastLimit } from '../metadata/limits.js';
import { type AnalysisRefusal, errorOf } from './refusals.js';
import { WorkerCrashError, WorkerPool, WorkerTimeoutError } from './worker-pool.js';

/** An upload as the analyzer takes it: its bytes (a view into one buffer) and its name. */
export interface AnalyzedUpload {
  bytes: Uint8Array<ArrayBuffer>;
  name: string;
}

/** Reads uploads: type, hash, dimensions, author, title (see `analyzeFile`). */
export interface FileAnalyzer {
  /**
   * Analyze `upload`. Its bytes may travel to a worker thread and back without a copy: afterwards
   * `upload.bytes` is the view to use (the same contents; empty when the worker had to be stopped).
   *
   * @throws {EmptyFileError} for no bytes.
   * @throws {FormatError} (with `limit` past a bound, `analysis_time` when reading took more than the time
   *   budget, `analysis_memory` when it needed more than a worker's heap).
   */
  analyze(upload: AnalyzedUpload): Promise<FileAnalysis>;
  /** Start the workers ahead of the first upload (they otherwise start on first use). */
  start(): Promise<void>;
  /** Stop the workers. */
  close(): Promise<void>;
}

/** Options of {@link createFileAnalyzer}. */
export interface FileAnalyzerOptions {
  /**
   * Worker threads (default `SERVER_DEFAULTS.analysisWorkers`: the CPUs, at most 4). `0` analyzes on the calling
   * thread: no time budget, and a slow file blocks the event loop (for tests and embedding only).
   */
  workers?: number;
  /**
   * Processor time one file may take to read, in ms (default 5000; and ten times that in wall-clock time);
   * past it its worker is terminated and replaced.
   */
  timeoutMs?: number;
}

/** What the main thread sends a worker: the buffer holding the upload, where in it the file is, its name. */
export interface AnalysisTask {
  buffer: ArrayBuffer;
  byteOffset: number;
  byteLength: number;
  name: string;
}

/** What a worker answers: the analysis or the refusal, and the buffer, moved back. */
export type AnalysisReply =
  | { ok: true; analysis: FileAnalysis; buffer: ArrayBuffer }
  | { ok: false; refusal: AnalysisRefusal; buffer: ArrayBuffer }
  | { ok: false; unexpected: string; buffer: ArrayBuffer };

/** Heap of one analysis worker: a 25 MiB text file decodes to at most ~100 MB of strings at once. */
const WORKER_HEAP_MB = 384;

/**
 * The worker's script: next to this module in the build; when this module runs from its TypeScript source
 * (the unit tests), the built one (`npm run build` first).
 */
function workerScript(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../dist/analysis/analysis-worker.js', here)
    : new URL('./analysis-worker.js', here);
}

/**
 * The analyzer of the service: uploads are read in a small pool of worker threads (at nice 10, so the event
 * loop comes first), each file under a budget of processor time, so that no file — however it was crafted —
 * can stop the event loop from answering other requests. The upload's buffer is moved to the worker and
 * back (no copy).
 *
 * @example
 * ```ts
 * const analyzer = createFileAnalyzer({ workers: 2, timeoutMs: 5000 });
 * const analysis = await analyzer.analyze({ bytes, name: 'photo.jpg' });
 * ```
 */
export function createFileAnalyzer(options: FileAnalyzerOptions = {}): FileAnalyzer {
  const workers = options.workers ?? SERVER_DEFAULTS.analysisWorkers;
  const timeoutMs = options.timeoutMs ?? SERVER_DEFAULTS.analysisTimeoutMs;
  if (workers === 0) {
    return {
      analyze: async (upload) => analyzeFile(upload.bytes, upload.name),
      start: async () => {},
      close: async () => {},
    };
  }
  const pool = new WorkerPool<AnalysisTask, AnalysisReply>({
    script: workerScript(),
    size: workers,
    timeoutMs,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  return {
    async analyze(upload) {
      const { bytes, name } = upload;
      if (bytes.byteLength === 0) return analyzeFile(bytes, name); // refused as empty, nothing to move
      const task: AnalysisTask = {
        buffer: bytes.buffer,
        byteOffset: bytes.byteOffset,
        byteLength: bytes.byteLength,
        name,
      };
      let reply: AnalysisReply;
      try {
        reply = await pool.run(task, [bytes.buffer]);
      } catch (error) {
        upload.bytes = new Uint8Array(0); // the buffer went down with the worker
        if (error instanceof WorkerTimeoutError) {
          const budget = `${error.timeoutMs / 1000} s${error.clock === 'cpu' ? ' of processor time' : ''}`;
          throw pastLimit(
            'analysis_time',
            `Reading \`${name}\` took more than ${budget}, the time allowed per file; it was stopped`,
          );
        }
        if (error instanceof WorkerCrashError && error.reason === 'ERR_WORKER_OUT_OF_MEMORY') {
          throw pastLimit(
            'analysis_memory',
            `Reading \`${name}\` needed more than the ${WORKER_HEAP_MB} MB allowed per file; it was stopped`,
          );
        }
        throw error;
      }
      upload.bytes = new Uint8Array(reply.buffer, task.byteOffset, task.byteLength);
      if (reply.ok) return reply.analysis;
      if ('unexpected' in reply) throw new Error(`Analysis failed: ${reply.unexpected}`);
      throw errorOf(reply.refusal);
    },
    start: () => pool.start(),
    close: () => pool.close(),
  };
}
