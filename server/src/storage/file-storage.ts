/**
 * Where signed files and event pages are kept. Keys are relative paths such as `documents/{hash}.png`;
 * a deployment can swap the filesystem for an S3-compatible store by implementing this interface.
 */
export interface FileStorage {
  /** Store `data` under `key`, atomically: afterwards the key holds all of `data` or nothing new. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** The bytes under `key`, or `undefined` when there are none. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined>;
  /** Remove `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key that starts with `prefix` (e.g. `documents/`). */
  list(prefix: string): AsyncIterable<string>;
  /** Delete what a crash left mid-write, if the store can leave anything; returns what it deleted. */
  removeLeftovers?(): Promise<string[]>;
}

/** Whether `key` is a safe storage key: lowercase path segments, no `..`, no leading slash. */
export function isStorageKey(key: string): boolean {
  return /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/.test(key) && !key.split('/').includes('..');
}
