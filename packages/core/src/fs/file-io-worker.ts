// The file I/O thread (see FileWorker in file-io.ts): runs batches of writes with synchronous system
// calls, one message in and one message out per batch.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { writeFileAtomicSync } from './atomic-write.js';
import { hashWritten, OP_CODES, type WireJob, type WireResults } from './file-io.js';

/** Run one op; the SHA-256 of what it wrote (`''` for a mkdir), hashed here, off the main thread. */
function runOp(kind: number, path: string, data: string | Uint8Array): string {
  if (kind === OP_CODES.mkdir) {
    mkdirSync(path, { recursive: true });
    return '';
  }
  if (kind === OP_CODES.write) writeFileSync(path, data);
  else writeFileAtomicSync(path, data);
  return hashWritten(data);
}

parentPort?.on('message', (jobs: WireJob[]) => {
  const results: WireResults = { done: [], failed: [] };
  for (const job of jobs) {
    const id = job[0] as number;
    try {
      const hashes: string[] = [];
      for (let index = 1; index < job.length; index += 3)
        hashes.push(
          runOp(job[index] as number, job[index + 1] as string, job[index + 2] as string | Uint8Array),
        );
      results.done.push([id, hashes]);
    } catch (error) {
      const { message, code } = error as NodeJS.ErrnoException;
      results.failed.push([id, message ?? String(error), code]);
    }
  }
  parentPort?.postMessage(results);
});
