import { randomBytes } from 'node:crypto';
import { mkdir, rename, renameSync, rm, rmSync, writeFile, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

// The callback API: per file it costs clearly less than `fs/promises` (no FileHandle per open), which
// matters for the verify files of runs that cannot use the I/O thread (see file-io.ts).

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

/**
 * Write a file atomically: to a temp file in the same directory, then rename over the target, so a reader
 * or a crash sees either the old or the new content, never a torn file. The new content is a new file: hard
 * links to the old one keep the old bytes.
 *
 * @example
 * ```ts
 * await writeFileAtomic('_site/about/index.html', signedHtml);
 * ```
 * @throws the `fs` error of the write or the rename (the temp file is removed first).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = tempPathFor(path);
  try {
    await writeFileFast(temp, data);
    await new Promise<void>((resolve, reject) =>
      rename(temp, path, (error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await new Promise<void>((resolve) => rm(temp, { force: true }, () => resolve()));
    throw error;
  }
}

/** {@link writeFileAtomic} with synchronous calls, for the I/O thread (see file-io-worker.ts). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const temp = tempPathFor(path);
  try {
    writeFileSync(temp, data);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
