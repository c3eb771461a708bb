import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { HEX64 } from '@siegel/core/crypto';
import { isStaleTempName, writeFileDurable } from '@siegel/core/fs';
import { isValidKeyName } from './key-name.js';

/** A key as stored on disk, one JSON file per key in `{dataDir}/keys/`: never the raw secret. */
export interface KeyFile {
  /** File format version. */
  version: 1;
  name: string;
  /** x-only public key, lowercase hex. */
  pubkey: string;
  /** The secret key encrypted with NIP-49. */
  ncryptsec: string;
  /** Unix seconds. */
  created_at: number;
}

/** The directory holding the key files of a data directory. */
export function keysDirectory(dataDir: string): string {
  return join(dataDir, 'keys');
}

/** Write a key file atomically and durably (flushed to disk before it returns), mode `0600`. */
export async function writeKeyFile(dataDir: string, key: KeyFile): Promise<void> {
  await writeFileDurable(
    join(keysDirectory(dataDir), `${key.name}.json`),
    `${JSON.stringify(key, null, 2)}\n`,
  );
}

/**
 * Remove the temp files a write killed half-way left behind (`keys/.name.json.*.tmp`, some holding a
 * complete `ncryptsec`; `.nip46.json.*.tmp` beside them): called at `start`, before anything is written.
 *
 * @returns the paths removed.
 */
export async function removeStaleTempFiles(dataDir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of [dataDir, keysDirectory(dataDir)]) {
    for (const name of await readdir(dir).catch(() => [])) {
      if (!isStaleTempName(name)) continue;
      await rm(join(dir, name), { force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}

/** Remove a key file (no error when it is already gone). */
export async function removeKeyFile(dataDir: string, name: string): Promise<void> {
  await rm(join(keysDirectory(dataDir), `${name}.json`), { force: true });
}

/**
 * Read every key file of a data directory. Files that are not valid key files are reported through
 * `onInvalid` and skipped, so one damaged file does not take the other keys down.
 */
export async function readKeyFiles(
  dataDir: string,
  onInvalid: (file: string, reason: string) => void,
): Promise<KeyFile[]> {
  const dir = keysDirectory(dataDir);
  const names = (await readdir(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort();
  const keys: KeyFile[] = [];
  for (const file of names) {
    try {
      const parsed: unknown = JSON.parse(await readFile(join(dir, file), 'utf8'));
      const reason = checkKeyFile(parsed, file.slice(0, -'.json'.length));
      if (reason) onInvalid(file, reason);
      else keys.push(parsed as KeyFile);
    } catch (error) {
      onInvalid(file, error instanceof Error ? error.message : String(error));
    }
  }
  return keys;
}

function checkKeyFile(value: unknown, expectedName: string): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const key = value as Partial<KeyFile>;
  if (key.version !== 1) return `unknown version \`${String(key.version)}\``;
  if (!isValidKeyName(key.name) || key.name !== expectedName) return 'name does not match the file name';
  if (typeof key.pubkey !== 'string' || !HEX64.test(key.pubkey)) return 'invalid pubkey';
  if (typeof key.ncryptsec !== 'string' || !key.ncryptsec.startsWith('ncryptsec1'))
    return 'invalid ncryptsec';
  if (!Number.isSafeInteger(key.created_at)) return 'invalid created_at';
  return undefined;
}
