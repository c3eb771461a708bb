import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { type FileStorage, isStorageKey } from './file-storage.js';

/**
 * {@link FileStorage} on the local filesystem under `root` (the default: `{SIEGEL_DATA_DIR}/files`).
 * Writes go to a temporary file in the same directory and are renamed into place, so a crash never leaves a
 * half-written file under a real key.
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
    const temporary = `${path}.tmp-${randomBytes(6).toString('hex')}`;
    try {
      await writeFile(temporary, data, { flush: true });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
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
}
