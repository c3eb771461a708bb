// Reading one response body from a site Siegel does not control (used by site-client.ts): unpacked
// (gzip, deflate raw or wrapped, br) and bounded — counted as sent and as unpacked, so neither an endless
// body nor a decompression bomb is ever held in memory past the limit. Separate from the client, which
// decides where a request may go and how long it may take; this file only decides how much of an answer
// is read.
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { SiegelError } from '../errors.js';
import { formatByteSize } from '../text/byte-size.js';

function fail(message: string, cause?: unknown): SiegelError {
  return new SiegelError('io_error', message, cause === undefined ? undefined : { cause });
}

/** The decoder for a `Content-Encoding` (none for identity). */
function decoderFor(url: URL, header: string | undefined) {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  const [coding] = codings;
  if (codings.length === 1 && (coding === 'gzip' || coding === 'x-gzip'))
    return { name: coding, make: () => createGunzip() };
  if (codings.length === 1 && coding === 'br') return { name: coding, make: () => createBrotliDecompress() };
  if (codings.length === 1 && coding === 'deflate')
    // HTTP's deflate is zlib-wrapped; some servers send it raw: the first two bytes tell.
    return {
      name: coding,
      make: (first: Buffer) =>
        first.length >= 2 &&
        (first[0] as number) % 16 === 8 &&
        (((first[0] as number) << 8) | (first[1] as number)) % 31 === 0
          ? createInflate()
          : createInflateRaw(),
    };
  throw fail(
    `\`${url.href}\` sent Content-Encoding \`${header}\`, which siegel verify does not take (it asks for gzip, deflate or br)`,
  );
}

/**
 * The body of `response`, unpacked, or a rejection as soon as it passes `maxBytes` — counted as sent
 * (compressed) and as unpacked, so neither an endless body nor a decompression bomb is ever held in memory
 * past the limit.
 */
export function readBody(
  url: URL,
  response: IncomingMessage,
  maxBytes: number,
  limitName: string,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const limit = `${formatByteSize(maxBytes)} (${limitName})`;
    let decoding: ReturnType<typeof decoderFor>;
    try {
      decoding = decoderFor(url, response.headers['content-encoding']);
    } catch (error) {
      reject(error);
      return;
    }
    const announced = Number(response.headers['content-length']);
    if (Number.isFinite(announced) && announced > maxBytes) {
      reject(
        fail(
          `\`${url.href}\` announces ${formatByteSize(announced)} (Content-Length), more than ${limit}: not read`,
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let unpacked = 0;
    let done = false;
    let decoder: ReturnType<NonNullable<typeof decoding>['make']> | undefined;
    const stop = (error: SiegelError) => {
      if (done) return;
      done = true;
      decoder?.destroy();
      response.destroy();
      reject(error);
    };
    const finish = () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, unpacked));
    };
    const take = (chunk: Buffer) => {
      if (done) return;
      unpacked += chunk.length;
      if (unpacked > maxBytes) {
        stop(
          fail(
            decoding
              ? `\`${url.href}\` unpacks (${decoding.name}) to more than ${limit}: stopped reading`
              : `\`${url.href}\` sent more than ${limit}: stopped reading`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    };
    response.on('data', (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > maxBytes) {
        stop(fail(`\`${url.href}\` sent more than ${limit}: stopped reading`));
        return;
      }
      if (!decoding) {
        take(chunk);
        return;
      }
      if (!decoder) {
        decoder = decoding.make(chunk);
        decoder.on('data', take);
        decoder.on('end', finish);
        decoder.on('error', (error: Error) =>
          stop(
            fail(
              `\`${url.href}\` sent a body that does not unpack (${decoding?.name}): ${error.message}`,
              error,
            ),
          ),
        );
      }
      // Read on only as fast as it unpacks: a bomb is caught by what it unpacks to, not by its size as sent.
      if (!decoder.write(chunk)) {
        response.pause();
        decoder.once('drain', () => response.resume());
      }
    });
    let ended = false;
    response.on('end', () => {
      ended = true;
      if (!decoding) finish();
      else if (decoder) decoder.end();
      else finish(); // an empty compressed body
    });
    response.on('error', (error) => stop(fail(`Cannot read \`${url.href}\` (${error.message})`, error)));
    response.on('close', () => {
      if (!ended) stop(fail(`\`${url.href}\` closed the connection before the body was complete`));
    });
  });
}
