/**
 * Fetching with the CLI's bounds from the background worker: a time limit and a size limit on every body,
 * and never a cookie (`credentials: 'omit'`): the extension's own requests carry nothing of the reader's.
 */

/** Largest page read, in bytes: 32 MiB, as `siegel verify` (`DEFAULTS.maxPageBytes`). */
export const MAX_PAGE_BYTES = 32 * 1024 * 1024;
/** Largest event file (`verify/{id}.json`) read: 1 MiB, as `siegel verify`. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** Time for one request, in ms. */
export const FETCH_TIMEOUT_MS = 10_000;

/** A response read whole within the bounds. */
export interface BoundedResponse {
  status: number;
  url: string;
  headers: Array<[string, string]>;
  contentType: string | null;
  bytes: Uint8Array;
}

/**
 * GET `url` without cookies, reading at most `maxBytes`. @throws when it cannot be read (network, time,
 * size), quoting the URL.
 */
export async function fetchBounded(url: string, maxBytes: number): Promise<BoundedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new Error(`\`${url}\` is larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return {
      status: response.status,
      url: response.url,
      // Recorded for the evidence: never `Set-Cookie` (a fetch without credentials should see none anyway).
      headers: [...response.headers].filter(([name]) => name.toLowerCase() !== 'set-cookie'),
      contentType: response.headers.get('content-type'),
      bytes,
    };
  } finally {
    clearTimeout(timer);
  }
}
