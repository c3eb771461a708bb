// Worker thread of the parse pool: parses pages (one parse5 parse each) off the main thread.
import { parentPort } from 'node:worker_threads';
import { parsePageForSigning, readPageForCheck } from './analyze.js';
import type { ParseRequest, ParseResponse } from './parse-pool.js';

parentPort?.on('message', (request: ParseRequest) => {
  const { id, buffer, selector, task, origin } = request;
  let response: ParseResponse;
  // A check needs the bytes no more: they stay here, and go with this thread's next collection.
  const back = task === 'check' ? undefined : buffer;
  try {
    response =
      task === 'check'
        ? { id, reading: readPageForCheck(Buffer.from(buffer), selector, { origin }) }
        : { id, buffer, parsed: parsePageForSigning(Buffer.from(buffer), selector, origin) };
  } catch (error) {
    response = { id, ...(back ? { buffer: back } : {}), error: (error as Error)?.message ?? String(error) };
  }
  parentPort?.postMessage(response, back ? [back] : []);
});
