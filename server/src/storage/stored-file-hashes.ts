import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FileStorage } from './file-storage.js';
import { StoreUnavailableError } from './store-errors.js';

/** What a stored file's bytes are: their SHA-256 (lowercase hex) and their length. */
export interface StoredFileDigest {
  sha256: string;
  size: number;
}

/** The outcome of {@link StoredFileHashes.hashOf}. */
export interface StoredFileHash {
  /** The stamp the digest was made under ({@link FileStorage.readVersion}); `undefined`: not reusable. */
  version: string | undefined;
  /** The bytes' digest, `undefined` when the key holds no file or it could not be read. */
  digest: StoredFileDigest | undefined;
  /** Why the file could not be read (the store's error message), when it could not. */
  error?: string;
}

/** Options of {@link StoredFileHashes}. */
export interface StoredFileHashesOptions {
  /** How many digests are remembered (least recently used dropped first). Default 20 000 (~8 MB). */
  maxEntries?: number;
  /** How many files are hashed at once; more wait their turn. Default 2. */
  concurrency?: number;
}

/** How much of an in-memory buffer {@link hashBytes} hashes before it lets other work run. */
const HASH_SLICE_BYTES = 1024 * 1024;

/**
 * SHA-256 of `bytes`, lowercase hex, hashed in 1 MiB slices with a turn of the event loop between them, so
 * hashing a 25 MiB file (~18 ms) never holds up other requests for more than about 1 ms.
 *
 * @example
 * ```ts
 * const hex = await hashBytes(await readFile('photo.png'));
 * ```
 */
export async function hashBytes(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let offset = 0; offset < bytes.byteLength; offset += HASH_SLICE_BYTES) {
    if (offset > 0) await nextTurn();
    hash.update(bytes.subarray(offset, offset + HASH_SLICE_BYTES));
  }
  return hash.digest('hex');
}

/**
 * The SHA-256 of stored files, remembered per file while its stamp ({@link FileStorage.readVersion}) stays
 * the same, so that checking a file on every verify call costs one `stat`, not a read of the file. A file
 * is read again when its stamp changes, when the store cannot tell one (then on every check), and after its
 * digest was dropped from the bounded memory. Files are read as streams where the store offers them (never
 * whole in memory), at most `concurrency` at a time; checks of the same file and stamp share one read, and
 * checks of a file without a stamp share the next read that starts after them.
 *
 * @example
 * ```ts
 * const hashes = new StoredFileHashes(storage);
 * const { digest } = await hashes.hashOf(`documents/${hash}.png`);
 * const intact = digest?.sha256 === hash;
 * ```
 */
export class StoredFileHashes {
  readonly #storage: FileStorage;
  readonly #maxEntries: number;
  readonly #concurrency: number;
  readonly #known = new Map<string, { version: string; digest: StoredFileDigest | undefined }>();
  readonly #reading = new Map<string, Promise<StoredFileHash>>();
  /** Per file whose stamp cannot be told: the running read, and the read queued behind it. */
  readonly #unversioned = new Map<
    string,
    { running: Promise<StoredFileHash>; queued?: Promise<StoredFileHash> }
  >();
  readonly #waiting: Array<() => void> = [];
  #active = 0;

  constructor(storage: FileStorage, options: StoredFileHashesOptions = {}) {
    this.#storage = storage;
    this.#maxEntries = options.maxEntries ?? 20_000;
    this.#concurrency = options.concurrency ?? 2;
  }

  /** The store's stamp of `key` now (see {@link FileStorage.readVersion}); `undefined` if it cannot tell. */
  readVersion(key: string): string | undefined {
    return this.#storage.readVersion?.(key);
  }

  /** The digest of the bytes under `key` now: remembered while their stamp is unchanged, else read. */
  hashOf(key: string): Promise<StoredFileHash> {
    const version = this.readVersion(key);
    if (version !== undefined) return this.#hashVersioned(key, version);
    // A store whose stamp takes a request (S3: HEAD, its ETag) is asked now, before any bytes are read.
    const stat = this.#storage.statVersion;
    if (stat === undefined) return this.#readUnversioned(key);
    return stat.call(this.#storage, key).then(
      (asked) => (asked === undefined ? this.#readUnversioned(key) : this.#hashVersioned(key, asked)),
      (error: unknown) => {
        if (error instanceof StoreUnavailableError) throw error;
        return { version: undefined, digest: undefined, error: (error as Error).message };
      },
    );
  }

  #hashVersioned(key: string, version: string): Promise<StoredFileHash> {
    const known = this.#known.get(key);
    if (known?.version === version) {
      // Least recently used first in the map's order: a hit moves to the end.
      this.#known.delete(key);
      this.#known.set(key, known);
      return Promise.resolve(known);
    }
    const readingKey = `${key}\n${version}`;
    const reading = this.#reading.get(readingKey);
    if (reading !== undefined) return reading;
    const read = this.#read(key, version).finally(() => this.#reading.delete(readingKey));
    this.#reading.set(readingKey, read);
    return read;
  }

  /**
   * A read of a file whose stamp cannot be told that starts after this call: a new one if none is running,
   * else the one queued behind the running read, shared by every call that arrives meanwhile. A running read
   * is not shared (it may have read the bytes before a change this call must see), yet however many calls
   * come at once, at most one read of the file runs and one waits.
   */
  #readUnversioned(key: string): Promise<StoredFileHash> {
    const slot = this.#unversioned.get(key);
    if (slot === undefined) return this.#startUnversioned(key);
    const next = () => this.#startUnversioned(key);
    slot.queued ??= slot.running.then(next, next);
    return slot.queued;
  }

  #startUnversioned(key: string): Promise<StoredFileHash> {
    const slot: { running: Promise<StoredFileHash>; queued?: Promise<StoredFileHash> } = {
      running: this.#read(key, undefined),
    };
    this.#unversioned.set(key, slot);
    // Registered before any queued read's start, so it runs first: the slot stays while a read waits on it.
    const done = () => {
      if (this.#unversioned.get(key) === slot && slot.queued === undefined) this.#unversioned.delete(key);
    };
    void slot.running.then(done, done);
    return slot.running;
  }

  async #read(key: string, version: string | undefined): Promise<StoredFileHash> {
    await this.#acquire();
    let digest: StoredFileDigest | undefined;
    try {
      digest = await this.#digest(key);
    } catch (error) {
      // A store that is away answers 503 (the file's state is unknown, not altered).
      if (error instanceof StoreUnavailableError) throw error;
      // Not remembered: the next check tries again.
      return { version: undefined, digest: undefined, error: (error as Error).message };
    } finally {
      this.#release();
    }
    if (version !== undefined) {
      this.#known.delete(key);
      if (this.#known.size >= this.#maxEntries) {
        const oldest = this.#known.keys().next().value;
        if (oldest !== undefined) this.#known.delete(oldest);
      }
      this.#known.set(key, { version, digest });
    }
    return { version, digest };
  }

  async #digest(key: string): Promise<StoredFileDigest | undefined> {
    if (this.#storage.stream === undefined) {
      const bytes = await this.#storage.get(key);
      return bytes === undefined ? undefined : { sha256: await hashBytes(bytes), size: bytes.byteLength };
    }
    // Large chunks: each one waits for a turn of the event loop, which downloads may keep busy (~4 ms).
    const chunks = await this.#storage.stream(key, { chunkBytes: HASH_SLICE_BYTES });
    if (chunks === undefined) return undefined;
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
    return { sha256: hash.digest('hex'), size };
  }

  #acquire(): Promise<void> {
    if (this.#active < this.#concurrency) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#active--;
    else next();
  }
}
