import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isStaleTempName, writeFileDurable } from '@siegel/core/fs';
import { type FileStorage, isStorageKey } from './file-storage.js';

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
  constructor(readonly root: string) {}

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
