import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import { DuplicateRecordError } from '../src/storage/record-store.js';
import { MIGRATIONS, SqliteRecordStore } from '../src/storage/sqlite-record-store.js';
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
    const removed = await t.fileSigner.removeOrphans();
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
