import { mkdir, stat } from 'node:fs/promises';
import { BunkerError } from './errors.js';
import { keysDirectory } from './key-file.js';

/**
 * Make sure a data directory and its `keys/` exist and are private: create what is missing with mode
 * `0700` (parents too), and refuse a directory that group or others may write to — whoever can write there
 * can replace a key file with a key of their own, or delete the keys. Nothing inside is created or changed
 * before the data directory itself has passed. (On Windows, where modes mean little, only the creation.)
 *
 * @throws {BunkerError} `invalid_request` naming the directory, its mode and the fix (`chmod 700 …`);
 *   the file system's error when a directory cannot be created or read.
 * @example
 * ```ts
 * await prepareDataDir('.bunker'); // .bunker/ and .bunker/keys/, 0700
 * ```
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await assertPrivate(dataDir, 'Data directory');
  const keys = keysDirectory(dataDir);
  await mkdir(keys, { recursive: true, mode: 0o700 });
  await assertPrivate(keys, 'Key directory');
}

async function assertPrivate(dir: string, what: string): Promise<void> {
  if (process.platform === 'win32') return;
  const mode = (await stat(dir)).mode;
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  if (!group && !others) return;
  const who = group && others ? 'group and others' : group ? 'group' : 'others';
  throw new BunkerError(
    'invalid_request',
    `${what} \`${dir}\` is writable by ${who} (mode ${(mode & 0o7777).toString(8).padStart(4, '0')}): anyone who may write there could replace or delete the keys. Make it private with \`chmod 700 ${shellQuote(dir)}\` and try again.`,
  );
}

/** A path as a shell word: as is when it is plain, else in single quotes. */
function shellQuote(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
