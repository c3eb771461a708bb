// The file I/O thread (see FileWorker in file-io.ts): runs batches of writes with synchronous system
// calls, one message in and one message out per batch.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { tempPathFor } from './atomic-write.js';
import type { FileJob, FileJobResult, FileOp } from './file-io.js';

function runOp(op: FileOp): void {
  if (op.op === 'mkdir') {
    mkdirSync(op.path, { recursive: true });
  } else if (op.op === 'write') {
    writeFileSync(op.path, op.data);
  } else {
    const temp = tempPathFor(op.path);
    try {
      writeFileSync(temp, op.data);
      renameSync(temp, op.path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

function runJob(job: FileJob): FileJobResult {
  try {
    for (const op of job.ops) runOp(op);
    return { id: job.id };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    return { id: job.id, error: { message: message ?? String(error), ...(code ? { code } : {}) } };
  }
}

parentPort?.on('message', (jobs: FileJob[]) => {
  parentPort?.postMessage(jobs.map(runJob));
});
