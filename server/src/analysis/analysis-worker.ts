// The analysis worker (`node:worker_threads`): runs `analyzeFile` on uploads the main thread moves here, so
// that reading a file never blocks the event loop that answers every other request. One task at a time:
// `{ id, task: { buffer, byteOffset, byteLength, name } }` → `{ id, result }`, the buffer moved back.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../api-error.js';
import { analyzeFile } from '../metadata/analyze-file.js';
import type { AnalysisReply, AnalysisTask } from './file-analyzer.js';

const port = parentPort;
if (port === null) throw new Error('analysis-worker.js runs as a worker thread only');
// Reading files yields to the event loop: on Linux, setpriority() of "0" is this thread alone, so the main
// thread (which answers every request) keeps its priority while the workers run at nice 10.
try {
  setPriority(10);
} catch {
  // Not permitted here (or not Linux's per-thread semantics): the pool still keeps files off the event loop.
}

port.on('message', ({ id, task }: { id: number; task: AnalysisTask }) => {
  const bytes = new Uint8Array(task.buffer, task.byteOffset, task.byteLength);
  let result: AnalysisReply;
  try {
    result = { ok: true, analysis: analyzeFile(bytes, task.name), buffer: task.buffer };
  } catch (error) {
    result =
      error instanceof ApiError
        ? {
            ok: false,
            status: error.status,
            code: error.code,
            message: error.message,
            extra: error.extra,
            buffer: task.buffer,
          }
        : { ok: false, unexpected: (error as Error).stack ?? String(error), buffer: task.buffer };
  }
  port.postMessage({ id, result }, [task.buffer]);
});
port.postMessage({ ready: true });
