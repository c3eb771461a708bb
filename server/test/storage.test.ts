import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileStorage } from '../src/storage/file-storage.js';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import { DuplicateRecordError } from '../src/storage/record-store.js';
import { MIGRATIONS, SqliteRecordStore } from '../src/storage/sqlite-record-store.js';
import { hashBytes, StoredFileHashes } from '../src/storage/stored-file-hashes.js';
import { makeTestApp, readFixture, signRequest, uploadForm } from './test-app.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-storage-test-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('FilesystemStorage', () => {
  it('puts, gets, lists and deletes, leaving no temp files; refuses unsafe keys', async () => {
    const storage = new FilesystemStorage(join(dir, 'files'));
    await storage.put('documents/a.png', Uint8Array.of(1, 2, 3));
    await storage.put('events/h/index.html', new TextEncoder().encode('<p>'));
    expect([...(await storage.get('documents/a.png'))!]).toEqual([1, 2, 3]);
    expect(await storage.get('documents/missing.png')).toBeUndefined();
    const keys: string[] = [];
    for await (const key of storage.list('')) keys.push(key);
    expect(keys.sort()).toEqual(['documents/a.png', 'events/h/index.html']);
    await storage.delete('documents/a.png');
    await storage.delete('documents/a.png');
    expect(await storage.get('documents/a.png')).toBeUndefined();
    for (const bad of ['../x', '/etc/passwd', 'documents/../../x', 'Documents/A.png', '']) {
      await expect(storage.put(bad, Uint8Array.of(1)), bad).rejects.toThrow(/Invalid storage key/);
    }
    expect(
      (await readdir(join(dir, 'files'), { recursive: true })).filter((f) => f.includes('.tmp-')),
    ).toEqual([]);
  });
});

describe('FilesystemStorage leftovers', () => {
  it('removes the temp files a crash left mid-put (core’s writeFileDurable names), and nothing else', async () => {
    const storage = new FilesystemStorage(join(dir, 'files'));
    await storage.put('documents/a.png', Uint8Array.of(1));
    await writeFile(join(dir, 'files', 'documents', '.b.png.0123456789ab.tmp'), 'half');
    await writeFile(join(dir, 'files', 'documents', '.notes'), 'kept: not a temp name');
    expect(await storage.removeLeftovers()).toEqual(['documents/.b.png.0123456789ab.tmp']);
    expect((await readdir(join(dir, 'files', 'documents'))).sort()).toEqual(['.notes', 'a.png']);
    expect(await storage.removeLeftovers()).toEqual([]);
  });
});

describe('SqliteRecordStore', () => {
  it('migrates once, keeps records across reopening, refuses duplicates and newer schemas', async () => {
    const path = join(dir, 'db', 'siegel.sqlite');
    const t = await makeTestApp({ records: new SqliteRecordStore(path) });
    const signed = await (
      await signRequest(t.app, uploadForm('a.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n')))
    ).json();
    const store = t.records as SqliteRecordStore;
    const record = await store.findByHash(signed.hash);
    expect(record?.authors).toEqual(['Ann Lee']);
    await expect(store.insert(record!)).rejects.toBeInstanceOf(DuplicateRecordError);
    store.close();
    await t.close();
    const reopened = new SqliteRecordStore(path);
    expect((await reopened.findByEventId(signed.event.id))?.hash).toBe(signed.hash);
    expect((reopened.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(
      MIGRATIONS.length,
    );
    reopened.close();
    const raw = new DatabaseSync(path);
    raw.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => new SqliteRecordStore(path)).toThrow(/newer than this server/);
  });

  it("changes its change stamp on every write, its own or another connection's, and only then", async () => {
    const path = join(dir, 'siegel.sqlite');
    const t = await makeTestApp({ records: new SqliteRecordStore(path) });
    const store = t.records as SqliteRecordStore;
    const stamps = [store.readChangeStamp()];
    const signed = await (
      await signRequest(t.app, uploadForm('a.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n')))
    ).json();
    stamps.push(store.readChangeStamp());
    await store.findByHash(signed.hash);
    expect(store.readChangeStamp()).toBe(stamps[1]);
    const other = new DatabaseSync(path);
    other.prepare('UPDATE signed_files SET title = ? WHERE hash = ?').run('Changed elsewhere', signed.hash);
    stamps.push(store.readChangeStamp());
    other.prepare('UPDATE signed_files SET title = NULL WHERE hash = ?').run('0'.repeat(64));
    expect(store.readChangeStamp()).toBe(stamps[2]); // a write that changed no row
    other.close();
    store.db.prepare('UPDATE signed_files SET title = ? WHERE hash = ?').run('Changed here', signed.hash);
    stamps.push(store.readChangeStamp());
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(store.readChangeStamp()).toBe(stamps.at(-1));
    await t.close();
  });
});

describe('FileSigner.removeOrphans', () => {
  it('deletes stored files without a record and temp files, keeps recorded ones', async () => {
    const t = await makeTestApp();
    const signed = await (
      await signRequest(t.app, uploadForm('a.gif', await readFixture('gif-author.gif')))
    ).json();
    const orphan = 'c'.repeat(64);
    await t.storage.put(`documents/${orphan}.png`, Uint8Array.of(1));
    await t.storage.put(`events/${orphan}/index.html`, Uint8Array.of(1));
    await mkdir(join(t.dir, 'files', 'documents'), { recursive: true });
    await writeFile(join(t.dir, 'files', 'documents', `${orphan}.png.tmp-abc123`), 'half');
    const { removed, held } = await t.fileSigner.removeOrphans();
    expect(held).toEqual([]);
    expect(removed.sort()).toEqual([
      `documents/${orphan}.png`,
      `documents/${orphan}.png.tmp-abc123`,
      `events/${orphan}/index.html`,
    ]);
    expect(await t.storage.get(`documents/${signed.hash}.gif`)).toBeDefined();
    expect(await t.storage.get(`events/${signed.hash}/index.html`)).toBeDefined();
    await t.close();
  });
});

describe('FilesystemStorage.readVersion and stream', () => {
  it('stamps a file by inode, size and times; undefined while missing or freshly written', async () => {
    const fresh = new FilesystemStorage(join(dir, 'files'));
    const storage = new FilesystemStorage(join(dir, 'files'), { racyVersionMs: 0 });
    expect(storage.readVersion('documents/a.png')).toBeUndefined();
    await storage.put('documents/a.png', Uint8Array.of(1, 2, 3));
    // Written just now: its times cannot tell it from a write in the same clock tick.
    expect(fresh.readVersion('documents/a.png')).toBeUndefined();
    const first = storage.readVersion('documents/a.png');
    expect(first).toMatch(/^\d+:\d+:3:[\d.]+:[\d.]+$/);
    expect(storage.readVersion('documents/a.png')).toBe(first);
    const path = join(dir, 'files', 'documents', 'a.png');
    const stamps = new Set([first]);
    await storage.put('documents/a.png', Uint8Array.of(1, 2, 4)); // replaced: another inode
    stamps.add(storage.readVersion('documents/a.png'));
    await writeFile(path, Uint8Array.of(1, 2, 3, 4)); // in place, another size
    // Dated a minute back, so that the next write cannot share its times (the kernel stamps them at its
    // clock tick: two writes within one would).
    await utimes(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    stamps.add(storage.readVersion('documents/a.png'));
    await writeFile(path, Uint8Array.of(9, 9, 9, 9)); // in place, same size: the times move
    stamps.add(storage.readVersion('documents/a.png'));
    expect(stamps.size).toBe(4);
    expect(storage.readVersion('documents')).toBeUndefined(); // a directory
    expect(storage.readVersion('../x')).toBeUndefined();
  });

  it('streams a file’s bytes, undefined when missing', async () => {
    const storage = new FilesystemStorage(join(dir, 'files'));
    const bytes = randomBytes(600_000);
    await storage.put('documents/b.pdf', bytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await storage.stream('documents/b.pdf'))!) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(await storage.stream('documents/none.pdf')).toBeUndefined();
  });
});

/** The filesystem store, counting how often a file is read whole (instrumentation, not a stand-in). */
class CountingStorage extends FilesystemStorage {
  reads = 0;
  override async stream(key: string) {
    this.reads++;
    return super.stream(key);
  }
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('StoredFileHashes', () => {
  it('reads a file once while its stamp holds, again when it changes', async () => {
    const storage = new CountingStorage(join(dir, 'files'), { racyVersionMs: 0 });
    const hashes = new StoredFileHashes(storage);
    const bytes = randomBytes(300_000);
    await storage.put('documents/c.png', bytes);
    // Dated a minute back, so that the write below cannot share its times (the kernel's clock tick).
    const path = join(dir, 'files', 'documents', 'c.png');
    await utimes(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const first = await hashes.hashOf('documents/c.png');
    expect(first.digest).toEqual({ sha256: sha256(bytes), size: bytes.length });
    expect(first.version).toBe(storage.readVersion('documents/c.png'));
    expect((await hashes.hashOf('documents/c.png')).digest?.sha256).toBe(sha256(bytes));
    expect(storage.reads).toBe(1);
    const altered = Buffer.from(bytes);
    altered[1000] = (altered[1000] ?? 0) ^ 0xff;
    await writeFile(path, altered);
    expect((await hashes.hashOf('documents/c.png')).digest?.sha256).toBe(sha256(altered));
    expect(storage.reads).toBe(2);
  });

  it('reads on every check while the stamp cannot be told, and shares one read between checks at once', async () => {
    const fresh = new CountingStorage(join(dir, 'files'));
    await fresh.put('documents/d.png', Uint8Array.of(1));
    const hashes = new StoredFileHashes(fresh);
    await hashes.hashOf('documents/d.png');
    await hashes.hashOf('documents/d.png');
    expect(fresh.reads).toBe(2);
    // Many checks at once: one read runs, one more waits for all that came after it started.
    const many = await Promise.all(Array.from({ length: 20 }, () => hashes.hashOf('documents/d.png')));
    expect(many.every((result) => result.digest?.sha256 === sha256(Uint8Array.of(1)))).toBe(true);
    expect(fresh.reads).toBe(4);
    const settled = new CountingStorage(join(dir, 'files'), { racyVersionMs: 0 });
    const shared = new StoredFileHashes(settled);
    const all = await Promise.all(Array.from({ length: 10 }, () => shared.hashOf('documents/d.png')));
    expect(new Set(all.map((result) => result.digest?.sha256))).toEqual(new Set([sha256(Uint8Array.of(1))]));
    expect(settled.reads).toBe(1);
  });

  it('gives a check of a file without a stamp a read that started after it, never one already running', async () => {
    /** Reads the bytes, then holds them until released, so a change can land while a read runs. */
    class GatedStorage extends CountingStorage {
      gates: Array<() => void> = [];
      override async stream(key: string) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of (await super.stream(key)) ?? []) chunks.push(chunk);
        await new Promise<void>((resolve) => this.gates.push(resolve));
        return (async function* () {
          yield* chunks;
        })();
      }
    }
    const storage = new GatedStorage(join(dir, 'files'));
    await storage.put('documents/h.png', Uint8Array.of(1));
    const hashes = new StoredFileHashes(storage);
    const before = hashes.hashOf('documents/h.png');
    while (storage.gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The first read has the old bytes and waits; the file changes; two more checks come.
    await writeFile(join(dir, 'files', 'documents', 'h.png'), Uint8Array.of(2));
    const after = [hashes.hashOf('documents/h.png'), hashes.hashOf('documents/h.png')];
    storage.gates.shift()?.();
    expect((await before).digest?.sha256).toBe(sha256(Uint8Array.of(1)));
    while (storage.gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    storage.gates.shift()?.();
    const results = await Promise.all(after);
    expect(results.map((result) => result.digest?.sha256)).toEqual([
      sha256(Uint8Array.of(2)),
      sha256(Uint8Array.of(2)),
    ]);
    expect(storage.reads).toBe(2);
  });

  it('tells a missing file from an unreadable one, and forgets past maxEntries', async () => {
    const storage = new CountingStorage(join(dir, 'files'), { racyVersionMs: 0 });
    const hashes = new StoredFileHashes(storage, { maxEntries: 1 });
    expect(await hashes.hashOf('documents/none.png')).toEqual({ version: undefined, digest: undefined });
    await mkdir(join(dir, 'files', 'documents', 'dir.png'), { recursive: true });
    const unreadable = await hashes.hashOf('documents/dir.png');
    expect(unreadable.digest).toBeUndefined();
    expect(unreadable.error).toMatch(/EISDIR/);
    await storage.put('documents/e.png', Uint8Array.of(1));
    await storage.put('documents/f.png', Uint8Array.of(2));
    storage.reads = 0;
    for (const key of ['documents/e.png', 'documents/f.png', 'documents/e.png', 'documents/e.png']) {
      await hashes.hashOf(key);
    }
    expect(storage.reads).toBe(3); // e, f (drops e), e again (drops f), then e remembered
  });

  it('hashes through get() in slices when a store cannot stream', async () => {
    const bytes = randomBytes(2_500_000);
    const memory: FileStorage = {
      put: async () => {},
      get: async (key) => (key === 'documents/g.png' ? new Uint8Array(bytes) : undefined),
      delete: async () => {},
      list: async function* () {},
    };
    const hashes = new StoredFileHashes(memory);
    expect(await hashes.hashOf('documents/g.png')).toEqual({
      version: undefined,
      digest: { sha256: sha256(bytes), size: bytes.length },
    });
    expect(await hashBytes(bytes)).toBe(sha256(bytes));
    expect(await hashBytes(new Uint8Array(0))).toBe(sha256(new Uint8Array(0)));
  });
});
