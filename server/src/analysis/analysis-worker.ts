// The analysis worker (`node:worker_threads`): runs `analyzeFile` on uploads the main thread moves here, so
// that reading a file never blocks the event loop that answers every other request. One task at a time:
// `{ id, task: { buffer, byteOffset, byteLength, name } }` → `{ id, result }`, the buffer moved back; a
// refusal travels as its domain error's fields (`refusals.ts`).
import { setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { analyzeFile } from '../metadata/analyze-file.js';
import type { AnalysisReply, AnalysisTask } from './file-analyzer.js';
import { refusalOf } from './refusals.js';

const port = parentPort;
if (port === null) throw new Error('analysis-worker.js runs as a worker thread only');
// Reading files yields to the event loop: on Linux, setpriority() of "0" is this thread alone, so the main
// thread (which answers every request) keeps its priority while the workers run at nice 10.
try {
  setPriority(10);
} catch {
  // Not permitted here (or not Linux's per-thread semantics): the pool still keeps files off the event loop.
}

/**
 * After a file of at least this many bytes the worker collects its garbage before it takes the next one.
 * A reader may build strings as large as the file (the PDF reader searches the file as Latin-1 text); left
 * to V8, a worker let them pile up towards its 384 MB heap before collecting — issue 22 measured 543 MB of
 * RSS with 60 parallel 24 MiB PDFs (PNGs: 374 MB). A full collection of a worker's small live heap takes a
 * few ms, on the worker's thread.
 */
const COLLECT_AFTER_BYTES = 1024 * 1024;
// `gc()` for this worker: the flag is read when a context is created, so a new context gets the function.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

port.on('message', ({ id, task }: { id: number; task: AnalysisTask }) => {
  const bytes = new Uint8Array(task.buffer, task.byteOffset, task.byteLength);
  let result: AnalysisReply;
  try {
    result = { ok: true, analysis: analyzeFile(bytes, task.name), buffer: task.buffer };
  } catch (error) {
    const refusal = refusalOf(error);
    result =
      refusal !== undefined
        ? { ok: false, refusal, buffer: task.buffer }
        : { ok: false, unexpected: (error as Error).stack ?? String(error), buffer: task.buffer };
  }
  port.postMessage({ id, result }, [task.buffer]);
  if (task.byteLength >= COLLECT_AFTER_BYTES) collectGarbage();
});
port.postMessage({ ready: true });
