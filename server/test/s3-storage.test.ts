import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsEngine } from '@siegel/core/crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type RunningS3Server, startS3Server } from '../../test/support/s3-server.ts';
import { createFileRoutes } from '../src/http/routes/file-routes.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { RecordChecker } from '../src/records/checked-records.js';
import { createFileEvent } from '../src/records/file-event.js';
import { documentKey } from '../src/records/public-urls.js';
import { recordFor } from '../src/signing/file-signer.js';
import type { FileStorage } from '../src/storage/file-storage.js';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import type { RecordStore, SignedFileRecord } from '../src/storage/record-store.js';
import { S3ConfigurationError } from '../src/storage/s3-errors.js';
import { S3Storage, type S3StorageOptions } from '../src/storage/s3-storage.js';
import { StoreUnavailableError } from '../src/storage/store-errors.js';
import { StoredFileHashes } from '../src/storage/stored-file-hashes.js';
import { BASE_URL, readFixture } from './test-app.js';

// S3Storage against a real S3-compatible server (@20minutes/s3rver, its own process, signatures checked).
let s3: RunningS3Server;
const opened: S3Storage[] = [];

/** An S3Storage on the test server; `overrides` replace any option. */
function storageOn(overrides: Partial<S3StorageOptions> = {}): S3Storage {
  const storage = new S3Storage({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    maxAttempts: 2,
    ...overrides,
  });
  opened.push(storage);
  return storage;
}

/** Everything `items` yields; fails when there are no items at all (a missing object's stream). */
async function collect<T>(items: AsyncIterable<T> | undefined): Promise<T[]> {
  if (items === undefined) throw new Error('nothing to collect: the object is missing');
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

beforeAll(async () => {
  s3 = await startS3Server();
});

afterAll(async () => {
  for (const storage of opened) storage.close();
  await s3?.destroy();
});

describe('S3Storage', () => {
  it('puts, gets, streams, lists and deletes objects, under its prefix only', async () => {
    const storage = storageOn({ prefix: 'one' });
    const other = storageOn({ prefix: 'two/' });
    const bytes = randomBytes(1000);
    await storage.put('documents/a.png', bytes);
    await other.put('documents/a.png', Buffer.from('other'));
    expect(Buffer.from((await storage.get('documents/a.png')) ?? [])).toEqual(bytes);
    expect(Buffer.from((await other.get('documents/a.png')) ?? []).toString()).toBe('other');
    expect(Buffer.concat(await collect(await storage.stream('documents/a.png')))).toEqual(bytes);
    expect(await collect(storage.list('documents/'))).toEqual(['documents/a.png']);
    expect(await collect(storage.list('events/'))).toEqual([]);

    await storage.delete('documents/a.png');
    await storage.delete('documents/a.png'); // missing: not an error
    expect(await storage.get('documents/a.png')).toBeUndefined();
    expect(await storage.stream('documents/a.png')).toBeUndefined();
    expect(await storage.statVersion('documents/a.png')).toBeUndefined();
    expect(await collect(storage.list('documents/'))).toEqual([]);
    expect(await other.get('documents/a.png')).toBeDefined();
    await expect(storage.put('../a.png', bytes)).rejects.toThrow('Invalid storage key `../a.png`');
    await expect(storage.get('Documents/A.png')).rejects.toThrow('Invalid storage key');
  });

  it('lists every key across pages (ListObjectsV2 continuation tokens)', async () => {
    const storage = storageOn({ prefix: 'paged', listPageSize: 100 });
    const keys = Array.from({ length: 250 }, (_, index) => `documents/${String(index).padStart(4, '0')}.txt`);
    for (let start = 0; start < keys.length; start += 25) {
      await Promise.all(keys.slice(start, start + 25).map((key) => storage.put(key, Buffer.from(key))));
    }
    await storage.put('events/e.json', Buffer.from('{}'));
    expect(await collect(storage.list('documents/'))).toEqual(keys);
    expect(await collect(storage.list(''))).toEqual([...keys, 'events/e.json']);
  });

  it('streams a 5 MiB object in several chunks, and frees the connection when a reader stops early', async () => {
    // One connection only: a response left open would hold every later request up until the test times out.
    const storage = storageOn({ prefix: 'big', maxSockets: 1 });
    const bytes = randomBytes(5 * 1024 * 1024);
    await storage.put('documents/big.pdf', bytes);
    const chunks = await collect(await storage.stream('documents/big.pdf'));
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(Buffer.from((await storage.get('documents/big.pdf')) ?? []).equals(bytes)).toBe(true);

    for (let round = 0; round < 3; round++) {
      for await (const chunk of (await storage.stream('documents/big.pdf')) ?? []) {
        expect(chunk.byteLength).toBeGreaterThan(0);
        break;
      }
    }
    expect((await storage.get('documents/big.pdf'))?.byteLength).toBe(bytes.byteLength);
  });

  it('stamps objects by HEAD; readVersion answers a stamp within versionTtlMs, then refreshes it in the background', async () => {
    const storage = storageOn({ prefix: 'stamps', versionTtlMs: 60_000 });
    const key = 'documents/s.txt';
    await storage.put(key, Buffer.from('first'));
    expect(storage.readVersion(key)).toBeUndefined();
    const first = await storage.statVersion(key);
    expect(first).toMatch(/^"[0-9a-f]{32}":5:\d+$/);
    expect(storage.readVersion(key)).toBe(first);

    // Replaced behind this instance's back: its remembered stamp stands until the TTL ends, a HEAD tells.
    const elsewhere = storageOn({ prefix: 'stamps' });
    await elsewhere.put(key, Buffer.from('second!'));
    expect(storage.readVersion(key)).toBe(first);
    const second = await storage.statVersion(key);
    expect(second).not.toBe(first);
    expect(second).toMatch(/:7:\d+$/);
    expect(storage.readVersion(key)).toBe(second);

    // Written or deleted through this instance: forgotten at once.
    await storage.put(key, Buffer.from('third'));
    expect(storage.readVersion(key)).toBeUndefined();
    await storage.statVersion(key);
    await storage.delete(key);
    expect(storage.readVersion(key)).toBeUndefined();

    const never = storageOn({ prefix: 'stamps', versionTtlMs: 0 });
    await never.put(key, Buffer.from('fourth'));
    expect(await never.statVersion(key)).toBeDefined();
    expect(never.readVersion(key)).toBeUndefined();

    // Past the TTL: the old stamp is answered while one HEAD fetches it anew in the background, which
    // sees a replacement; past twice the TTL without a fresh stamp, there is none. The stamps' ages are
    // set by moving a fake `Date` (only `Date`: timers and sockets stay real), not by sleeping.
    const start = Date.now();
    vi.setSystemTime(start);
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const brief = storageOn({ prefix: 'stamps', versionTtlMs: 300 });
    const before = await brief.statVersion(key);
    expect(before).toBeDefined();
    await elsewhere.put(key, Buffer.from('fifth, replaced'));
    vi.setSystemTime(start + 320);
    expect(brief.readVersion(key)).toBe(before);
    // The background HEAD goes to the S3 process: a bounded poll (vi.waitFor, on real timers: `eventually`
    // reads `Date.now`, which stands still here).
    await vi.waitFor(() => expect([before, undefined]).not.toContain(brief.readVersion(key)), {
      timeout: 5000,
      interval: 10,
    });
    expect(brief.readVersion(key)).toMatch(/:15:\d+$/);
    const idle = storageOn({ prefix: 'stamps', versionTtlMs: 50 });
    expect(await idle.statVersion(key)).toBeDefined();
    vi.setSystemTime(start + 320 + 120);
    expect(idle.readVersion(key)).toBeUndefined();
  });

  it('presigns GET URLs that plain fetch() reads, and the store refuses an altered signature', async () => {
    const storage = storageOn({ prefix: 'presigned' });
    const png = await readFixture('png-author.png');
    await storage.put('documents/p.png', png);
    const url = await storage.presignGet('documents/p.png', 60);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(png)).toBe(true);

    const altered = new URL(url);
    const signature = altered.searchParams.get('X-Amz-Signature') ?? '';
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    altered.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    const refused = await fetch(altered);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('SignatureDoesNotMatch');
    // Another key: the signature covers the path.
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace('p.png', 'q.png');
    expect((await fetch(otherKey)).status).toBe(403);
    // Signed with a wrong secret.
    const forged = storageOn({
      prefix: 'presigned',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    expect((await fetch(await forged.presignGet('documents/p.png', 60))).status).toBe(403);
    await expect(storage.presignGet('documents/p.png', 0)).rejects.toThrow('A presigned URL lives 1 to');
  });

  it('tells the operator what to fix for a wrong secret, an unknown key id or a missing bucket (no 503)', async () => {
    const right = storageOn({ prefix: 'refused' });
    const wrongSecret = storageOn({
      prefix: 'refused',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    for (const attempt of [
      () => wrongSecret.put('documents/w.txt', Buffer.from('refused')),
      () => wrongSecret.get('documents/w.txt'),
      () => collect(wrongSecret.list('documents/')),
      () => wrongSecret.assertReachable(),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(S3ConfigurationError);
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toContain(`bucket \`${s3.bucket}\` at ${s3.endpoint}`);
    }
    await expect(wrongSecret.put('documents/w.txt', Buffer.from('refused'))).rejects.toThrow(
      'check AWS_SECRET_ACCESS_KEY (SignatureDoesNotMatch)',
    );
    // The refused PUT stored nothing.
    expect(await right.get('documents/w.txt')).toBeUndefined();

    const unknownKey = storageOn({ credentials: { accessKeyId: 'NOBODY', secretAccessKey: 'x' } });
    await expect(unknownKey.get('documents/w.txt')).rejects.toThrow(
      'check AWS_ACCESS_KEY_ID (InvalidAccessKeyId)',
    );
    const noBucket = storageOn({ bucket: 'no-such-bucket' });
    await expect(noBucket.assertReachable()).rejects.toThrow(
      `S3 bucket \`no-such-bucket\` at ${s3.endpoint} failed: the bucket does not exist`,
    );
    await expect(noBucket.put('documents/n.txt', Buffer.from('n'))).rejects.toThrow('(NoSuchBucket)');
    await right.assertReachable();
  });
});

/** A record of `fixture` as the file signer writes it, its file stored in `storage`. */
async function storedRecord(storage: FileStorage, fixture: string): Promise<SignedFileRecord> {
  const bytes = await readFixture(fixture);
  const analysis = analyzeFile(bytes, fixture);
  const fileKey = documentKey(analysis.hash, analysis.type.extension);
  const event = jsEngine.signEvent(
    createFileEvent(analysis, `${BASE_URL}/${fileKey}`, fixture),
    jsEngine.generateSecretKey(),
  );
  await storage.put(fileKey, bytes);
  return recordFor(analysis, event, fixture, event.created_at + 1);
}

/**
 * The file routes over `storage`, with records from a map: a stand-in for the database only (the routes
 * read records through RecordChecker, which calls `findByHash`); the files are in the real store.
 */
function routesOver(
  storage: FileStorage,
  records: Map<string, SignedFileRecord>,
  redirect?: { seconds: number },
) {
  const store = { findByHash: async (hash: string) => records.get(hash) } as unknown as RecordStore;
  const checker = new RecordChecker(store, new StoredFileHashes(storage));
  return createFileRoutes({ storage, checker, baseUrl: BASE_URL, cdnUrl: BASE_URL, redirect });
}

describe('FILE_REDIRECT=presigned: /{hash} answers 302 to the store', () => {
  it('redirects a verified record to a presigned URL, and answers anything else as before', async () => {
    const storage = storageOn({ prefix: 'redirect' });
    const record = await storedRecord(storage, 'png-author.png');
    const records = new Map([[record.hash, record]]);
    const routes = routesOver(storage, records, { seconds: 300 });

    const redirected = await routes.request(`/${record.hash}`);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('cache-control')).toBe('no-store');
    const location = redirected.headers.get('location') ?? '';
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/redirect/${record.fileKey}?`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(await readFixture('png-author.png'))).toBe(true);
    expect((await routes.request(`/${record.hash}.png`)).status).toBe(302);

    // Without the option, or on a store that cannot presign: proxied.
    const proxied = await routesOver(storage, records).request(`/${record.hash}`);
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toBe('image/png');
    const dir = await mkdtemp(join(tmpdir(), 'siegel-redirect-'));
    try {
      const local = new FilesystemStorage(dir);
      const localRecord = await storedRecord(local, 'png-author.png');
      const answer = await routesOver(local, new Map([[localRecord.hash, localRecord]]), {
        seconds: 300,
      }).request(`/${localRecord.hash}`);
      expect(answer.status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // A stored field that no longer matches the event: not verified, so no redirect (served as before).
    records.set(record.hash, { ...record, title: 'Forged Title' });
    const unverified = await routes.request(`/${record.hash}`);
    expect(unverified.status).toBe(200);
    expect(unverified.headers.get('location')).toBeNull();
    records.set(record.hash, record);

    // Replaced behind this instance's back (its remembered stamp would still stand for 15 s): the redirect
    // asks the store first, so no URL to the replaced bytes.
    const original = (await storage.get(record.fileKey)) as Uint8Array;
    expect((await routes.request(`/${record.hash}`)).status).toBe(302);
    await storageOn({ prefix: 'redirect' }).put(record.fileKey, Buffer.from('replaced in the bucket'));
    const behind = await routes.request(`/${record.hash}`);
    expect(behind.status).toBe(410);
    expect(behind.headers.get('location')).toBeNull();
    await storage.put(record.fileKey, original);
    expect((await routes.request(`/${record.hash}`)).status).toBe(302);

    // The stored file replaced: 410 FILE_ALTERED, never a URL to the replaced bytes.
    await storage.put(record.fileKey, Buffer.from('not the signed file'));
    const altered = await routes.request(`/${record.hash}`);
    expect(altered.status).toBe(410);
    expect(((await altered.json()) as { error: string }).error).toBe('FILE_ALTERED');
    await storage.delete(record.fileKey);
    expect((await routes.request(`/${record.hash}`)).status).toBe(410);
  });
});

// Last: stops and restarts the server the tests above share.
describe('S3Storage when the store goes away', () => {
  it('throws StoreUnavailableError while s3rver is stopped, and the same instance works once it is back', async () => {
    const storage = storageOn({ prefix: 'outage' });
    await storage.put('documents/o.txt', Buffer.from('kept'));
    await s3.stop();
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['get', () => storage.get('documents/o.txt')],
      ['put', () => storage.put('documents/o.txt', Buffer.from('new'))],
      ['list', () => collect(storage.list('documents/'))],
      ['stream', () => storage.stream('documents/o.txt')],
      ['statVersion', () => storage.statVersion('documents/o.txt')],
      ['delete', () => storage.delete('documents/o.txt')],
      ['assertReachable', () => storage.assertReachable()],
    ];
    for (const [name, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, name).toBeInstanceOf(StoreUnavailableError);
      const message = (error as Error).message;
      expect(message, name).toContain(`S3 bucket \`${s3.bucket}\` at ${s3.endpoint}`);
      expect(message, name).toContain('ECONNREFUSED');
      expect(message.includes('\n'), name).toBe(false);
      expect((error as Error).cause, name).toBeDefined();
    }
    await s3.start();
    expect(Buffer.from((await storage.get('documents/o.txt')) ?? []).toString()).toBe('kept');
    await storage.put('documents/o.txt', Buffer.from('back'));
    expect(await collect(storage.list('documents/'))).toEqual(['documents/o.txt']);
  });
});
