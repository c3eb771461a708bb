import { type Answer, type HttpOptions, requestWithRetries } from './http.js';
import type { UploadOptions } from './upload-body.js';
import { countingStream, multipartBody, supportsRequestStreams, uploadName } from './upload-body.js';

/**
 * Runtimes where a streamed upload failed although the stream check passed: Chromium refuses to stream a
 * request body over HTTP/1.1 (`ERR_H2_OR_QUIC_REQUIRED`), which no check can tell before trying. Per fetch
 * function, so one client's failure does not change another's.
 */
const streamingFailed = new WeakSet<typeof fetch>();

/**
 * POST `blob` as `multipart/form-data` to an upload route with the sign token, retrying 429 and 503 (safe:
 * the server signs by content hash, so a repeated sign is `ALREADY_SIGNED`). With `onProgress`, the body is
 * streamed through a counting stream where the runtime can send one; a streamed attempt that fails with a
 * `TypeError` (no answer) is sent again at once as a plain body; when that one is answered, this client
 * does not stream again.
 */
export async function sendUpload(
  http: HttpOptions,
  path: string,
  blob: Blob,
  options: UploadOptions,
): Promise<Answer> {
  const { signal, onProgress } = options;
  const fileName = await uploadName(blob, options.fileName);
  const { body, contentType } = multipartBody(blob, fileName);
  const headers: Record<string, string> = { 'Content-Type': contentType, Accept: 'application/json' };
  if (http.token !== undefined) headers.Authorization = `Bearer ${http.token}`;
  const total = body.size;
  const plain = async (url: string): Promise<Response> => {
    onProgress?.({ loaded: 0, total });
    const response = await http.fetch(url, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
    onProgress?.({ loaded: total, total });
    return response;
  };
  const attempt = async (url: string): Promise<Response> => {
    if (onProgress === undefined || !supportsRequestStreams() || streamingFailed.has(http.fetch)) {
      return plain(url);
    }
    try {
      return await http.fetch(url, {
        method: 'POST',
        headers,
        body: countingStream(body, onProgress),
        duplex: 'half',
        ...(signal ? { signal } : {}),
      } as RequestInit);
    } catch (error) {
      if (signal?.aborted || !(error instanceof TypeError)) throw error;
      const response = await plain(url);
      // The plain body got an answer where the stream got none: the stream was the problem.
      streamingFailed.add(http.fetch);
      return response;
    }
  };
  return requestWithRetries(http, path, attempt, signal);
}
