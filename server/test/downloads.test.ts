import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServerConfig } from '../src/config/config.js';
import { ApiError } from '../src/http/api-error.js';
import {
  DOWNLOAD_CHUNK_BYTES,
  DOWNLOAD_TURN_BYTES,
  DOWNLOAD_WINDOW_BYTES,
  DownloadBudget,
} from '../src/http/download-budget.js';
import { streamStoredFile } from '../src/http/stored-file-stream.js';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import { makeTestApp, readFixture, signRequest, TOKEN, uploadForm } from './test-app.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What a settled promise came to: `admitted` or the error's code. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'admitted',
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );
}

describe('DownloadBudget', () => {
  it('reserves a window per download (the file when smaller), and refuses what does not fit with SERVER_BUSY', async () => {
    const budget = new DownloadBudget({ maxBufferedBytes: 2 * DOWNLOAD_WINDOW_BYTES, maxWaitMs: 0 });
    const large = await budget.admit(24 << 20);
    const small = await budget.admit(1000);
    expect(budget.usage).toMatchObject({ downloads: 2, reservedBytes: DOWNLOAD_WINDOW_BYTES + 1000 });
    const refusal = await budget.admit(24 << 20).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).toJSON()).toMatchObject({ error: 'SERVER_BUSY', retry_after: 5 });
    expect((refusal as ApiError).status).toBe(503);
    large.hold(DOWNLOAD_CHUNK_BYTES);
    small.hold(1000);
    large.hold(DOWNLOAD_WINDOW_BYTES);
    expect(budget.usage).toMatchObject({
      bufferedBytes: DOWNLOAD_WINDOW_BYTES + 1000,
      peakBufferedBytes: DOWNLOAD_WINDOW_BYTES + 1000,
      refused: 1,
    });
    large.release();
    large.release(); // a second release of the same download changes nothing
    large.hold(99); // nor does a hold after it
    expect(budget.usage).toMatchObject({ downloads: 1, reservedBytes: 1000, bufferedBytes: 1000 });
    await expect(outcome(budget.admit(24 << 20))).resolves.toBe('admitted');
    expect(budget.usage.peakBufferedBytes).toBe(DOWNLOAD_WINDOW_BYTES + 1000);
  });

  it('lets a download wait for room, in order, and withdraws one whose client left', async () => {
    // Room for two downloads, and two may wait (as many as fit).
    const budget = new DownloadBudget({ maxBufferedBytes: 2 * DOWNLOAD_WINDOW_BYTES, maxWaitMs: 60_000 });
    const first = await budget.admit(24 << 20);
    const other = await budget.admit(24 << 20);
    const left = new AbortController();
    const leaving = outcome(budget.admit(24 << 20, left.signal));
    const waiting = budget.admit(24 << 20);
    expect(budget.usage.waiting).toBe(2);
    await expect(outcome(budget.admit(24 << 20))).resolves.toBe('SERVER_BUSY'); // a third may not wait
    left.abort();
    await expect(leaving).resolves.toBe('SERVER_BUSY');
    first.release();
    const second = await waiting;
    // Refused: the third; not the one whose client left.
    expect(budget.usage).toMatchObject({ downloads: 2, waiting: 0, refused: 1 });
    second.release();
    other.release();
  });

  it('refuses a budget smaller than one download; MAX_DOWNLOAD_BUFFERED_BYTES is 64 MiB unless set', () => {
    expect(() => new DownloadBudget({ maxBufferedBytes: DOWNLOAD_WINDOW_BYTES - 1 })).toThrow(
      /at least 262144 \(one download\), got `262143`/,
    );
    expect(readServerConfig({}).maxDownloadBufferedBytes).toBe(64 * 1024 * 1024);
    expect(readServerConfig({ MAX_DOWNLOAD_BUFFERED_BYTES: '1048576' }).maxDownloadBufferedBytes).toBe(
      1 << 20,
    );
    expect(() => readServerConfig({ MAX_DOWNLOAD_BUFFERED_BYTES: '1000' })).toThrow(
      'MAX_DOWNLOAD_BUFFERED_BYTES must hold at least one download (262144), got `1000`',
    );
  });

  it('grants DOWNLOAD_TURN_BYTES per turn of the event loop; the rest wait, in order, for the next turns', async () => {
    const budget = new DownloadBudget();
    const slot = await budget.admit(24 << 20);
    const chunks = (DOWNLOAD_TURN_BYTES / DOWNLOAD_CHUNK_BYTES) * 2 + 1;
    const granted: number[] = [];
    const waits = Array.from({ length: chunks }, (_, index) => {
      const turn = slot.turn(DOWNLOAD_CHUNK_BYTES);
      if (turn === undefined) granted.push(index);
      return turn?.then(() => granted.push(index));
    });
    const perTurn = DOWNLOAD_TURN_BYTES / DOWNLOAD_CHUNK_BYTES;
    expect(granted).toHaveLength(perTurn);
    await nextTurn(); // the budget's turn was scheduled first: it has run
    expect(granted).toHaveLength(2 * perTurn);
    await nextTurn();
    expect(granted).toHaveLength(chunks);
    await Promise.all(waits);
    expect(granted).toEqual(Array.from({ length: chunks }, (_, index) => index));
    slot.release();
  });
});

/** Node's response as the stream sees it: what it holds unsent, and its events. */
class FakeConnection extends EventEmitter {
  writableLength = 0;
  destroyed = false;
}

/** The filesystem store, counting the chunks read (instrumentation, not a stand-in). */
class CountingStorage extends FilesystemStorage {
  chunksRead = 0;
  override async stream(key: string, options?: { chunkBytes?: number }) {
    const chunks = await super.stream(key, options);
    if (chunks === undefined) return undefined;
    const counter = this;
    return (async function* () {
      for await (const chunk of chunks) {
        counter.chunksRead++;
        yield chunk;
      }
    })();
  }
}

/** Read `body` to its end or its error: the bytes that came, and the error. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; error?: Error }> {
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks) };
      chunks.push(value);
    }
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error: error as Error };
  }
}

describe('streamStoredFile', () => {
  let dir: string;
  let storage: CountingStorage;
  let budget: DownloadBudget;
  const bytes = randomBytes(5 * DOWNLOAD_CHUNK_BYTES + 1234);
  const digest = { sha256: sha256(bytes), size: bytes.length };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'siegel-downloads-'));
    storage = new CountingStorage(dir);
    budget = new DownloadBudget();
    await storage.put('documents/a.pdf', bytes);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sends the checked bytes, holding at most a window, and frees the budget at the end', async () => {
    const slot = await budget.admit(bytes.length);
    const opened = await streamStoredFile(storage, 'documents/a.pdf', digest, { slot });
    expect(Buffer.from(opened?.head ?? []).equals(bytes.subarray(0, DOWNLOAD_CHUNK_BYTES))).toBe(true);
    const { bytes: sent, error } = await readAll(opened!.body);
    expect(error).toBeUndefined();
    expect(sent.equals(bytes)).toBe(true);
    expect(budget.usage).toMatchObject({ downloads: 0, bufferedBytes: 0, cutOff: 0 });
    expect(budget.usage.peakBufferedBytes).toBeLessThanOrEqual(DOWNLOAD_WINDOW_BYTES);
    expect(await streamStoredFile(storage, 'documents/none.pdf', digest, { slot })).toBeUndefined();
  });

  it('reads the next chunk only once the connection holds at most one unsent', async () => {
    const connection = new FakeConnection();
    const slot = await budget.admit(bytes.length);
    const opened = await streamStoredFile(storage, 'documents/a.pdf', digest, { slot, connection });
    const reader = opened!.body.getReader();
    await reader.read(); // the head
    connection.writableLength = DOWNLOAD_CHUNK_BYTES + 1; // the connection took nothing of it yet
    const next = reader.read();
    await nextTurn();
    expect(storage.chunksRead).toBe(1);
    expect(budget.usage.bufferedBytes).toBeLessThanOrEqual(DOWNLOAD_WINDOW_BYTES);
    connection.writableLength = 0;
    connection.emit('drain');
    expect((await next).value?.byteLength).toBe(DOWNLOAD_CHUNK_BYTES);
    expect(storage.chunksRead).toBe(2);
    await reader.cancel();
    // The reader left: the budget is free, the file closed.
    expect(budget.usage).toMatchObject({ downloads: 0, bufferedBytes: 0 });
  });

  it('frees the budget only once the connection has sent the last bytes', async () => {
    const connection = new FakeConnection();
    const slot = await budget.admit(bytes.length);
    const opened = await streamStoredFile(storage, 'documents/a.pdf', digest, { slot, connection });
    await readAll(opened!.body);
    expect(budget.usage.downloads).toBe(1);
    connection.emit('finish');
    expect(budget.usage).toMatchObject({ downloads: 0, bufferedBytes: 0 });
  });

  it('cuts the body off before its last chunk when the file changed after its check', async () => {
    const reasons: string[] = [];
    const cases: Array<[string, (path: string) => Promise<void>, RegExp]> = [
      [
        'a byte changed in place',
        async (path) => {
          const handle = await open(path, 'r+');
          await handle.write(Uint8Array.of((bytes[bytes.length - 1] ?? 0) ^ 1), 0, 1, bytes.length - 1);
          await handle.close();
        },
        /changed after its check: it now hashes to `[0-9a-f]{64}`/,
      ],
      [
        'grown',
        async (path) => {
          const handle = await open(path, 'a');
          await handle.write(Uint8Array.of(1));
          await handle.close();
        },
        /is longer than the \d+ bytes it was checked with/,
      ],
      [
        'shortened',
        async (path) => {
          const handle = await open(path, 'r+');
          await handle.truncate(bytes.length - 10);
          await handle.close();
        },
        /ends after \d+ bytes, not the \d+ it was checked with/,
      ],
    ];
    for (const [label, change, reason] of cases) {
      await storage.put('documents/a.pdf', bytes);
      const slot = await budget.admit(bytes.length);
      const opened = await streamStoredFile(storage, 'documents/a.pdf', digest, {
        slot,
        onCutOff: (message) => reasons.push(message),
      });
      await change(join(dir, 'documents', 'a.pdf'));
      const { bytes: sent, error } = await readAll(opened!.body);
      expect(error, label).toBeInstanceOf(Error);
      expect(sent.length, label).toBeLessThan(bytes.length);
      expect(sent.equals(bytes.subarray(0, sent.length)), label).toBe(true);
      expect(reasons.at(-1), label).toMatch(reason);
      expect(budget.usage, label).toMatchObject({ downloads: 0, bufferedBytes: 0 });
    }
    expect(budget.usage.cutOff).toBe(3);
  });
});

describe('the file routes within the budget', () => {
  it('answers HEAD (holding none of the budget once answered), and the counters to a sign token only', async () => {
    const t = await makeTestApp();
    try {
      const png = await readFixture('png-author.png');
      const signed = (await (await signRequest(t.app, uploadForm('png-author.png', png))).json()) as {
        hash: string;
      };
      const head = await t.app.request(`/${signed.hash}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(png.length));
      expect(head.headers.get('content-type')).toBe('image/png');
      const get = await t.app.request(`/documents/${signed.hash}.png`);
      expect(sha256(new Uint8Array(await get.arrayBuffer()))).toBe(signed.hash);
      expect((await t.app.request('/api/downloads')).status).toBe(401);
      const counters = await t.app.request('/api/downloads', {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(counters.headers.get('cache-control')).toBe('no-store');
      expect(await counters.json()).toMatchObject({
        downloads: 0,
        waiting: 0,
        buffered_bytes: 0,
        reserved_bytes: 0,
        max_buffered_bytes: 64 * 1024 * 1024,
        refused: 0,
        cut_off: 0,
      });
    } finally {
      await t.close();
    }
  });
});
