import { createHash } from 'node:crypto';
import type { FileStorage } from '../storage/file-storage.js';
import type { StoredFileDigest } from '../storage/stored-file-hashes.js';
import { DOWNLOAD_CHUNK_BYTES, type DownloadSlot } from './download-budget.js';

/**
 * The connection a download is written to, as far as {@link streamStoredFile} watches it: Node's
 * `ServerResponse` under `@hono/node-server` (`c.env.outgoing`). `writableLength` is what it holds not yet
 * taken by the operating system; `drain` comes when that is empty again after a write filled it.
 */
export interface DownloadConnection {
  readonly writableLength: number;
  readonly destroyed: boolean;
  once(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
  off(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
}

/** What {@link streamStoredFile} opened: the first bytes (to tell the type from) and the whole body. */
export interface StoredFileStream {
  /** At least the first two bytes (unless the file is shorter): what a text file's encoding is told from. */
  head: Uint8Array;
  /** Every byte of the file, `head` included; errors (cutting the response off) unless they hash right. */
  body: ReadableStream<Uint8Array>;
}

/** Options of {@link streamStoredFile}. */
export interface StoredFileStreamOptions {
  /** The download's share of the budget: told what it holds, released when the stream ends. */
  slot: DownloadSlot;
  /** The connection the body is written to; without it the stream cannot wait for it (`app.request()`). */
  connection?: DownloadConnection;
  /** The request's signal: the client left before the body was read. */
  signal?: AbortSignal;
  /** Told why a response was cut off (the file changed after its check), for the log. */
  onCutOff?: (reason: string) => void;
}

/** The file no longer is what was checked: the response is cut off. */
class CutOff extends Error {}

/**
 * The bytes under `key` as a response body that sends only the file that was checked: `expected` is the
 * digest the record check found for it (the file's stamp unchanged since, or read again). The bytes are
 * hashed again as they are read, and the chunk that completes `expected.size` is sent only once the file has
 * ended there and its SHA-256 is `expected.sha256`; otherwise the body errors before it, so the client gets
 * a response cut short (connection reset, fewer bytes than `Content-Length`), never a complete body of other
 * bytes. A chunk is read from the store only when the connection holds at most one chunk not yet sent, so a
 * download holds at most two ({@link DOWNLOAD_WINDOW_BYTES}), which it reports to its `slot`; the slot is
 * released when the body ends, errors, or is cancelled (the client left). `undefined` when `key` holds no
 * file (the slot is then the caller's to release).
 *
 * @example
 * ```ts
 * const opened = await streamStoredFile(storage, key, digest, { slot, connection: c.env?.outgoing });
 * return opened && new Response(opened.body, { headers: { 'Content-Length': String(digest.size) } });
 * ```
 */
export async function streamStoredFile(
  storage: FileStorage,
  key: string,
  expected: StoredFileDigest,
  options: StoredFileStreamOptions,
): Promise<StoredFileStream | undefined> {
  const { slot, connection, signal, onCutOff } = options;
  const source = await openChunks(storage, key);
  if (source === undefined) return undefined;
  const hash = createHash('sha256');
  let read = 0;
  /** Bytes put into the body so far (what the connection may still hold of it). */
  let enqueued = 0;
  let ended = false;
  const unsent = () => (connection === undefined ? 0 : Math.min(connection.writableLength, enqueued));

  /** The next chunk, hashed in its turn (`slot.turn`); `undefined` at the end of the file. */
  const next = async (): Promise<Uint8Array | undefined> => {
    const { done, value } = await source.next();
    if (done) return undefined;
    const turn = slot.turn(value.byteLength);
    if (turn !== undefined) await turn;
    read += value.byteLength;
    hash.update(value);
    return value;
  };
  /** Stop reading, free the budget (once the connection has sent what it holds, when it can tell). */
  const end = (waitForConnection: boolean) => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener('abort', onAbort);
    void source.return?.(undefined).catch(() => undefined);
    if (!waitForConnection || connection === undefined || connection.destroyed) return slot.release();
    const done = () => {
      connection.off('finish', done);
      connection.off('close', done);
      slot.release();
    };
    connection.once('finish', done);
    connection.once('close', done);
  };
  const onAbort = () => end(false);

  let head: Uint8Array;
  try {
    head = (await next()) ?? new Uint8Array(0);
    // A store may hand over a first chunk of one byte (S3): the type needs two.
    while (head.byteLength < 2 && read < expected.size) {
      const more = await next();
      if (more === undefined) break;
      head = Buffer.concat([head, more]);
    }
  } catch (error) {
    end(false);
    throw error;
  }
  slot.hold(head.byteLength);
  signal?.addEventListener('abort', onAbort, { once: true });
  let pending: Uint8Array | undefined = head;

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let chunk = pending;
          pending = undefined;
          if (chunk === undefined) {
            if (!(await roomFor(connection))) return end(false); // the client left
            slot.hold(unsent());
            chunk = await next();
            if (ended) return; // cancelled meanwhile
            if (chunk === undefined)
              throw new CutOff(`ends after ${read} bytes, not the ${expected.size} it was checked with`);
            slot.hold(unsent() + chunk.byteLength);
          }
          if (read > expected.size)
            throw new CutOff(`is longer than the ${expected.size} bytes it was checked with`);
          if (read === expected.size) {
            if ((await next()) !== undefined)
              throw new CutOff(`is longer than the ${expected.size} bytes it was checked with`);
            const actual = hash.digest('hex');
            if (actual !== expected.sha256) throw new CutOff(`now hashes to \`${actual}\``);
            slot.hold(unsent() + chunk.byteLength);
            controller.enqueue(chunk);
            enqueued += chunk.byteLength;
            controller.close();
            return end(true);
          }
          controller.enqueue(chunk);
          enqueued += chunk.byteLength;
        } catch (error) {
          if (error instanceof CutOff) {
            slot.markCutOff();
            onCutOff?.(`The stored file \`${key}\` changed after its check: it ${error.message}`);
          }
          controller.error(error);
          end(false);
        }
      },
      cancel() {
        end(false);
      },
    },
    // Nothing is read ahead of the reader: a chunk is read when the connection asks for one.
    { highWaterMark: 0 },
  );
  return { head, body };
}

/** The store's chunks of `key` (one chunk of all of it for a store that cannot stream); `undefined`: missing. */
async function openChunks(storage: FileStorage, key: string): Promise<AsyncIterator<Uint8Array> | undefined> {
  if (storage.stream !== undefined) return (await storage.stream(key))?.[Symbol.asyncIterator]();
  const bytes = await storage.get(key);
  return bytes === undefined ? undefined : whole(bytes);
}

async function* whole(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * Resolves once `connection` holds at most one chunk not yet sent (at once without a connection): `true`,
 * or `false` when it closed meanwhile.
 */
function roomFor(connection: DownloadConnection | undefined): Promise<boolean> | boolean {
  if (connection === undefined) return true;
  if (connection.destroyed) return false;
  if (connection.writableLength <= DOWNLOAD_CHUNK_BYTES) return true;
  // More than one chunk (≥ the socket's high-water mark) is waiting: the write that queued it returned
  // false, so `drain` comes once the connection has sent it all.
  return new Promise((resolve) => {
    const drained = () => settle(true);
    const closed = () => settle(false);
    const settle = (open: boolean) => {
      connection.off('drain', drained);
      connection.off('close', closed);
      resolve(open);
    };
    connection.once('drain', drained);
    connection.once('close', closed);
  });
}
