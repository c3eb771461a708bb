// Worker thread of the parse pool: analyses pages (one parse5 parse each) off the main thread.
import { parentPort } from 'node:worker_threads';
import { analyzePage } from './page-analysis.js';
import { toBytePlace } from './page-splice.js';
import type { ParseRequest, ParseResponse } from './parse-pool.js';

parentPort?.on('message', (request: ParseRequest) => {
  const { id, buffer, selector } = request;
  let response: ParseResponse;
  try {
    const bytes = Buffer.from(buffer);
    const html = bytes.toString('utf8');
    const analysis = analyzePage(html, { selector });
    const place = {
      insertAt: analysis.insertAt,
      ...(analysis.existingBlock ? { existingBlock: analysis.existingBlock } : {}),
    };
    response = {
      id,
      buffer,
      parsed: {
        hash: analysis.hash,
        title: analysis.title,
        description: analysis.description,
        place,
        bytePlace: toBytePlace(html, place, bytes.length),
      },
    };
  } catch (error) {
    response = { id, buffer, error: (error as Error)?.message ?? String(error) };
  }
  parentPort?.postMessage(response, [buffer]);
});
