// fs/ owns how Siegel replaces a file: whole or not at all. Two durability levels, each with one name:
// - writeFileAtomic / writeFileAtomicSync: temp file + rename, no fsync. A reader or a killed process sees
//   the old or the new content, never a torn file; a power cut may lose the newest write. For build output
//   (pages, the cache), which a rebuild restores, and where an fsync per file would cost most of a run.
//   The replacement keeps the permission bits of the file it replaces (a 0600 page stays 0600).
// - writeFileDurable: the same, plus fsync of the file and its directory before it returns. For state that
//   cannot be rebuilt (the bunker's key files).
// The bunker and the file server import this file as `@siegel/core/fs`.
import { randomBytes } from 'node:crypto';
import {
  chmod,
  chmodSync,
  mkdir,
  rename,
  renameSync,
  rm,
  rmSync,
  stat,
  statSync,
  writeFile,
  writeFileSync,
} from 'node:fs';
import { open, rename as renamePath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// The callback API: per file it costs clearly less than `fs/promises` (no FileHandle per open), which
// matters for the verify files of runs that cannot use the I/O thread (see fs/file-io.ts).

/** `fs.writeFile` as a promise. */
export function writeFileFast(path: string, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) =>
    writeFile(path, data, (error) => (error ? reject(error) : resolve())),
  );
}

/** `fs.mkdir(path, { recursive: true })` as a promise. */
export function mkdirFast(path: string): Promise<void> {
  return new Promise((resolve, reject) =>
    mkdir(path, { recursive: true }, (error) => (error ? reject(error) : resolve())),
  );
}

// Temp names: a random 48-bit start per process, counted up (12 hex digits); cheaper than random bytes
// per file, and unique within the process.
let tempCounter = randomBytes(6).readUIntBE(0, 6);

function nextTempId(): string {
  tempCounter = (tempCounter + 1) % 2 ** 48;
  return tempCounter.toString(16).padStart(12, '0');
}

/** A fresh temp file name next to `path`: `.{name}.{12 hex}.tmp` (what `findPages` clears after a crash). */
function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${nextTempId()}.tmp`);
}

/** True for the name of a temp file {@link writeFileAtomic} or {@link writeFileDurable} left behind. */
export function isStaleTempName(name: string, target?: string): boolean {
  return /^\..+\.[0-9a-f]{12}\.tmp$/.test(name) && (target === undefined || name.startsWith(`.${target}.`));
}

/** Permission bits (and setuid/setgid/sticky) of a file's mode. */
const MODE_BITS = 0o7777;

/**
 * Write a file atomically, not durably: to a temp file in the same directory, then rename over the target,
 * so a reader or a crash of this process sees either the old or the new content, never a torn file. No
 * fsync: after a power cut the newest content may be missing. The new content is a new file: hard links to
 * the old one keep the old bytes. It keeps the old file's permission bits (a `0600` page stays `0600`); a
 * new file gets the process's default (`0666` less the umask), as any file the build writes. The temp file
 * is created with those bits, never wider, so the content is not readable by more users while it is written.
 * `options.mode` sets the bits instead (a secret: `0o600`, whatever the old file had).
 *
 * @example
 * ```ts
 * await writeFileAtomic('_site/about/index.html', signedHtml);
 * await writeFileAtomic('.siegel-nip46-client.json', json, { mode: 0o600 });
 * ```
 * @throws the `fs` error of the write or the rename (the temp file is removed first).
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const mode =
    options.mode ??
    (await new Promise<number | undefined>((resolve) =>
      stat(path, (error, stats) => resolve(error ? undefined : stats.mode & MODE_BITS)),
    ));
  const temp = tempPathFor(path);
  try {
    await new Promise<void>((resolve, reject) =>
      writeFile(temp, data, { flag: 'wx', ...(mode === undefined ? {} : { mode }) }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    // The umask may have narrowed `mode` at creation: set it exactly.
    if (mode !== undefined)
      await new Promise<void>((resolve, reject) =>
        chmod(temp, mode, (error) => (error ? reject(error) : resolve())),
      );
    await new Promise<void>((resolve, reject) =>
      rename(temp, path, (error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await new Promise<void>((resolve) => rm(temp, { force: true }, () => resolve()));
    throw error;
  }
}

/** {@link writeFileAtomic} with synchronous calls, for the I/O thread (see fs/file-io-worker.ts). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const found = statSync(path, { throwIfNoEntry: false });
  const mode = found === undefined ? undefined : found.mode & MODE_BITS;
  const temp = tempPathFor(path);
  try {
    writeFileSync(temp, data, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Write a file atomically and durably: into a new temp file beside it (created with `mode`, default
 * `0600`), flushed to disk, renamed over `path`, then the directory flushed too. When it returns, the new
 * content survives a power cut; a crash at any point leaves the old file or the new one, never half of one.
 *
 * @example
 * ```ts
 * await writeFileDurable('.bunker/keys/default.json', JSON.stringify(keyFile));
 * ```
 * @throws the file system's error; the temp file is removed.
 */
export async function writeFileDurable(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const temp = tempPathFor(path);
  try {
    const handle = await open(temp, 'wx', options.mode ?? 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await new Promise<void>((resolve, reject) =>
      rename(temp, path, (error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await new Promise<void>((resolve) => rm(temp, { force: true }, () => resolve()));
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can fsync a directory; the rename itself is still atomic.
  }
}

/**
 * Move a file that cannot be read out of the way, keeping its bytes: `{path}.corrupt-{ms}`. Resolves with
 * the new name.
 *
 * @example
 * await moveAside('.sign-outbox.json'); // '.sign-outbox.json.corrupt-1795453992000'
 */
export async function moveAside(path: string): Promise<string> {
  const aside = `${path}.corrupt-${Date.now()}`;
  await renamePath(path, aside);
  return aside;
}
