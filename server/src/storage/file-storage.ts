/**
 * Where signed files and event pages are kept. Keys are relative paths such as `documents/{hash}.png`.
 * Implementations: the local filesystem (`FilesystemStorage`, the default) and S3-compatible object storage
 * (`S3Storage`).
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
  /**
   * The bytes under `key` as a stream of chunks, or `undefined` when there are none. Optional: it lets a
   * stored file be hashed or served without holding all of it in memory; without it, `get` is used.
   * `chunkBytes`: the largest chunk wanted, where the store reads in chunks of its choosing (the filesystem:
   * default 128 KiB; S3 hands over what arrives, at most 64 KiB).
   */
  stream?(key: string, options?: { chunkBytes?: number }): Promise<AsyncIterable<Uint8Array> | undefined>;
  /**
   * A cheap, synchronous stamp of the bytes under `key`: it differs whenever they may have changed (the
   * filesystem: device, inode, size, modification and change time). `undefined` when the store cannot tell
   * — the key is missing, or was written too recently for its times to tell two writes apart — and the bytes
   * must be read. A stored file's hash check is reused only while its stamp is the one it was made under.
   * Optional: a store that cannot tell leaves it out, and every check reads the bytes.
   */
  readVersion?(key: string): string | undefined;
  /**
   * The stamp of the bytes under `key`, asking the store now (S3: a `HEAD`, its ETag): used when
   * {@link readVersion} cannot tell, before the bytes are read. Optional; `undefined` when missing.
   */
  statVersion?(key: string): Promise<string | undefined>;
  /**
   * A URL the bytes under `key` can be fetched from directly for `seconds` (S3: a presigned `GET`), for
   * `FILE_REDIRECT=presigned`. Optional: a store without it is always proxied.
   */
  presignGet?(key: string, seconds: number): Promise<string>;
}

/** Whether `key` is a safe storage key: lowercase path segments, no `..`, no leading slash. */
export function isStorageKey(key: string): boolean {
  return /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/.test(key) && !key.split('/').includes('..');
}
