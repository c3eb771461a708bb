import { constants, type Dirent, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type FileStorage, isStorageKey } from '../storage/file-storage.js';
import { MIGRATIONS, SqliteRecordStore } from '../storage/sqlite-record-store.js';

// The source of `siegel-server migrate`: a data directory it did not write and must not trust. Its database
// is checked before anything is read from it, and its files are read without following a link or opening
// anything but a regular file, so nothing outside the store (a link to /etc/passwd, a FIFO that never ends)
// reaches the target.

/** Chunk size of {@link SourceFiles.stream} (as FilesystemStorage reads). */
const STREAM_CHUNK_BYTES = 256 * 1024;

/**
 * A stored file of the migration's source that is not read: its key is no storage key, it (or a directory on
 * its path) is a symbolic link, it is no regular file, or it cannot be opened. The record it belongs to is
 * reported and not copied; the run goes on.
 */
export class SourceFileError extends Error {
  constructor(
    readonly key: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SourceFileError';
  }
}

/** The source database cannot be read (no database, damaged, of a newer schema, or no siegel-server store). */
export class SourceDatabaseError extends Error {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(`Cannot read the source database at ${path}: ${reason}`, options);
    this.name = 'SourceDatabaseError';
  }
}

/**
 * Open the source's SQLite store at `path` after checking it: a SQLite database (`PRAGMA quick_check`, which
 * reads every page, so a truncated file is found here and not halfway through the copy), with the
 * `signed_files` table, of a schema this server knows. An older schema is brought up to date, as the server
 * does at start.
 *
 * @throws {SourceDatabaseError} one line saying what is wrong.
 */
export function openSourceRecords(path: string): SqliteRecordStore {
  let probe: DatabaseSync | undefined;
  try {
    probe = new DatabaseSync(path);
    const { user_version: version } = probe.prepare('PRAGMA user_version').get() as { user_version: number };
    if (version > MIGRATIONS.length) {
      throw new SourceDatabaseError(
        path,
        `it was written by a newer siegel-server (schema ${version}; this one reads up to ${MIGRATIONS.length})`,
      );
    }
    const problems = (probe.prepare('PRAGMA quick_check(3)').all() as { quick_check: string }[])
      .map((row) => row.quick_check)
      .filter((line) => line !== 'ok');
    if (problems.length > 0) throw new SourceDatabaseError(path, `it is damaged (${problems.join('; ')})`);
    const table = probe.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'signed_files'");
    if (table.get() === undefined) {
      throw new SourceDatabaseError(path, 'it holds no siegel-server store (no `signed_files` table)');
    }
  } catch (error) {
    if (error instanceof SourceDatabaseError) throw error;
    throw new SourceDatabaseError(path, (error as Error).message, { cause: error });
  } finally {
    probe?.close();
  }
  try {
    return new SqliteRecordStore(path);
  } catch (error) {
    throw new SourceDatabaseError(path, (error as Error).message, { cause: error });
  }
}

/**
 * The source's stored files under `root`, read-only, never following a link: every directory on a key's
 * path is `lstat`ed (a link is refused), the file itself is opened with `O_NOFOLLOW` and `O_NONBLOCK` (a
 * FIFO does not block the open) and must be a regular file. A missing file is `undefined`, as in every
 * store. `root` itself may be a link (the operator's choice of disk); nothing under it may.
 */
export class SourceFiles implements FileStorage {
  constructor(readonly root: string) {}

  async get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
    const handle = await this.#open(key);
    if (handle === undefined) return undefined;
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async stream(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const handle = await this.#open(key);
    // The stream owns the handle: it closes it at the end, on an error, or when the reader stops early.
    return handle?.createReadStream({ highWaterMark: STREAM_CHUNK_BYTES });
  }

  /** The size of the file under `key` (without reading it), `undefined` when missing; checked as {@link get}. */
  async sizeOf(key: string): Promise<number | undefined> {
    const handle = await this.#open(key);
    if (handle === undefined) return undefined;
    try {
      return (await handle.stat()).size;
    } finally {
      await handle.close();
    }
  }

  put(key: string): Promise<void> {
    return Promise.reject(new Error(`The migration's source is read-only (a write of \`${key}\`)`));
  }

  delete(key: string): Promise<void> {
    return Promise.reject(new Error(`The migration's source is read-only (a delete of \`${key}\`)`));
  }

  /** The keys of the regular files under `root` starting with `prefix` (links are not listed). */
  async *list(prefix: string): AsyncIterable<string> {
    let entries: Dirent[];
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const key = relative(this.root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (key.startsWith(prefix) && isStorageKey(key)) yield key;
    }
  }

  async #open(key: string): Promise<FileHandle | undefined> {
    if (!isStorageKey(key)) throw new SourceFileError(key, `\`${key}\` is no storage key`);
    const parts = key.split('/');
    for (let end = 1; end < parts.length; end++) {
      const path = parts.slice(0, end).join('/');
      let stats: Stats;
      try {
        stats = await lstat(join(this.root, path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw unreadable(key, error);
      }
      if (stats.isSymbolicLink()) throw linked(key, path);
      if (!stats.isDirectory()) throw new SourceFileError(key, `\`${path}\` is no directory`);
    }
    let handle: FileHandle;
    try {
      handle = await open(
        join(this.root, ...parts),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      // What `open` answers for a link under O_NOFOLLOW: ELOOP (Linux, macOS), EMLINK (FreeBSD).
      if (code === 'ELOOP' || code === 'EMLINK') throw linked(key, key);
      throw unreadable(key, error);
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw new SourceFileError(key, `\`${key}\` is no regular file (${fileTypeOf(stats)})`);
    }
    return handle;
  }
}

function linked(key: string, path: string): SourceFileError {
  return new SourceFileError(
    key,
    `\`${path}\` is a symbolic link; a migration never follows links out of the source store`,
  );
}

function unreadable(key: string, error: unknown): SourceFileError {
  const { code, message } = error as NodeJS.ErrnoException;
  return new SourceFileError(key, `\`${key}\` cannot be read (${code ?? message})`, { cause: error });
}

function fileTypeOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}
