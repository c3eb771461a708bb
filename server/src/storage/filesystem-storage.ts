import { type Dirent, statSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isStaleTempName, writeFileDurable } from '@siegel/core/fs';
import { type FileStorage, isStorageKey } from './file-storage.js';

/**
 * How recent (ms) a file's modification or change time may be for {@link FilesystemStorage.readVersion} to
 * still answer `undefined`. The kernel stamps those times at its clock tick (a few ms on Linux; FAT keeps
 * 2 s), so two writes close together can leave them equal: a file changed this recently is read again on
 * every check, as git does with "racily clean" index entries.
 */
export const RACY_VERSION_MS = 2000;

/** How many key → path resolutions {@link FilesystemStorage.readVersion} keeps (then starts over). */
const MAX_VERSION_PATHS = 10_000;

/** Default chunk size of {@link FilesystemStorage.stream}: a download's chunk (`DOWNLOAD_CHUNK_BYTES`). */
const STREAM_CHUNK_BYTES = 128 * 1024;

/**
 * {@link FileStorage} on the local filesystem under `root` (the default: `{SIEGEL_DATA_DIR}/files`).
 * Writes are core's `writeFileDurable` (a temp file in the same directory, flushed, renamed into place, the
 * directory flushed), so a crash never leaves a half-written file under a real key.
 *
 * @example
 * ```ts
 * const storage = new FilesystemStorage('./data/files');
 * await storage.put('documents/ab12….png', bytes);
 * ```
 */
export class FilesystemStorage implements FileStorage {
  readonly #racyVersionMs: number;
  /** Paths of the keys {@link readVersion} was asked about (it runs on every verify call; ~1 µs saved). */
  readonly #versionPaths = new Map<string, string>();

  /**
   * @param root the directory keys are paths under.
   * @param options `racyVersionMs`: see {@link RACY_VERSION_MS} (the default); tests set 0.
   */
  constructor(
    readonly root: string,
    options: { racyVersionMs?: number } = {},
  ) {
    this.#racyVersionMs = options.racyVersionMs ?? RACY_VERSION_MS;
  }

  private pathOf(key: string): string {
    if (!isStorageKey(key)) throw new Error(`Invalid storage key \`${key}\``);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Mode 0666 before the umask: what a plain writeFile gives (the service serves these files itself).
    await writeFileDurable(path, data, { mode: 0o666 });
  }

  async get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * The file's bytes in chunks of at most `chunkBytes` (default 128 KiB), each read when the reader asks for
   * it: nothing is read ahead (a download that waits for its client holds no more than the chunk it has).
   * The handle is closed at the end, on an error, or when the reader stops early (`return`); a reader must
   * iterate the result (or call its `return`) to close it.
   */
  async stream(
    key: string,
    options: { chunkBytes?: number } = {},
  ): Promise<AsyncIterable<Uint8Array> | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return readChunks(handle, options.chunkBytes ?? STREAM_CHUNK_BYTES);
  }

  /**
   * `{dev}:{ino}:{size}:{mtimeMs}:{ctimeMs}` of the file (one `stat`, about 2 µs), or `undefined` when it is
   * missing, cannot be read, or changed within the last {@link RACY_VERSION_MS} (or `racyVersionMs`). Any write changes the change
   * time (which, unlike the modification time, cannot be set back), and a file replaced by another gets
   * another inode.
   */
  readVersion(key: string): string | undefined {
    let stats: ReturnType<typeof statSync>;
    try {
      let path = this.#versionPaths.get(key);
      if (path === undefined) {
        path = this.pathOf(key);
        if (this.#versionPaths.size >= MAX_VERSION_PATHS) this.#versionPaths.clear();
        this.#versionPaths.set(key, path);
      }
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (stats === undefined || !stats.isFile()) return undefined;
    // In whole milliseconds, as Date.now() counts: a file written in the current millisecond has times a
    // fraction past it, and with `racyVersionMs: 0` it is settled at once, not (sometimes) racy.
    const settled = Date.now() - this.#racyVersionMs;
    if (Math.floor(stats.ctimeMs) > settled || Math.floor(stats.mtimeMs) > settled) return undefined;
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Delete the temp files a crash left mid-write (`.{name}.{12 hex}.tmp`); returns their paths. */
  async removeLeftovers(): Promise<string[]> {
    const removed: string[] = [];
    for (const entry of await this.#entries()) {
      if (!entry.isFile() || !isStaleTempName(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      await rm(path, { force: true });
      removed.push(relative(this.root, path).split(sep).join('/'));
    }
    return removed;
  }

  async *list(prefix: string): AsyncIterable<string> {
    for (const entry of await this.#entries()) {
      if (!entry.isFile()) continue;
      const key = relative(this.root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (key.startsWith(prefix) && isStorageKey(key)) yield key;
    }
  }

  async #entries(): Promise<Dirent[]> {
    try {
      return await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}

/** `handle`'s bytes from where it stands, `chunkBytes` at a time, each read on demand; closes it. */
async function* readChunks(handle: FileHandle, chunkBytes: number): AsyncGenerator<Uint8Array> {
  try {
    while (true) {
      const buffer = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
