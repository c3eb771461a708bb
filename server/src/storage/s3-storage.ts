import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { contentTypeOf } from '@siegel/formats';
import { type FileStorage, isStorageKey } from './file-storage.js';
import { classifyS3Error } from './s3-errors.js';
import { StoreUnavailableError } from './store-errors.js';

/** How long (ms) a stamp fetched by {@link S3Storage.statVersion} is answered by `readVersion`. */
export const S3_VERSION_TTL_MS = 15_000;

/** How many fetched stamps {@link S3Storage} remembers (then starts over). */
const MAX_VERSIONS = 10_000;

/** The longest a presigned URL may live (SigV4: 7 days). */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** Options of {@link S3Storage}. */
export interface S3StorageOptions {
  /** The store's URL, e.g. `http://minio:9000`; left out: AWS S3 itself (from `region`). */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Address the bucket in the path (`ENDPOINT/BUCKET/KEY`), as MinIO and most S3-compatible stores want. */
  forcePathStyle?: boolean;
  /** Default: the AWS SDK's chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profiles, instance roles…). */
  credentials?: S3ClientConfig['credentials'];
  /** Put before every key inside the bucket, e.g. `siegel/` (a `/` is added when it lacks one). */
  prefix?: string;
  /** See {@link S3Storage.readVersion}; default {@link S3_VERSION_TTL_MS}. */
  versionTtlMs?: number;
  /** Keys asked for per `ListObjectsV2` page (S3's maximum and default: 1000). */
  listPageSize?: number;
  /** Connections kept to the store at most (default 50); more requests wait for one. */
  maxSockets?: number;
  /** Tries per request, the first included (default 3: the SDK's retries of network errors and 5xx). */
  maxAttempts?: number;
}

/**
 * {@link FileStorage} on S3-compatible object storage (AWS S3, MinIO, Ceph, R2…), for several server
 * instances sharing one set of files. Built on the AWS SDK (`@aws-sdk/client-s3`).
 *
 * - Writes are atomic: an S3 `PUT` stores all of the object or nothing, and readers see the old object or
 *   the new one, never a mix; it carries `Content-Length` and `Content-MD5`, so a store refuses a body cut
 *   short or damaged on the way (`IncompleteBody`, `BadDigest`) instead of keeping it. Nothing is left
 *   behind by a crash mid-write, so there is no `removeLeftovers`.
 * - A store that cannot be reached, answers 5xx or throttles (`SlowDown`) gives {@link StoreUnavailableError}
 *   (answered 503, retried later); a wrong bucket, credentials or region gives `S3ConfigurationError`,
 *   which says what to fix. {@link assertReachable} checks the bucket at start-up.
 * - There is no cheap synchronous stamp of an object: {@link readVersion} answers the stamp a `HEAD`
 *   ({@link statVersion}) fetched within the last `versionTtlMs` (`S3_STAMP_MS`, default 15 s); one older
 *   than that is still answered, for at most another `versionTtlMs`, while one `HEAD` in the background
 *   fetches it anew (a busy verify API never waits for S3, and asks once per file and period, not per call:
 *   at 1 s, 100 files verified all day would be 8.6 million `HEAD`s, which S3 bills).
 *   Past twice `versionTtlMs` it is `undefined`. So a stored file replaced behind the server's back (by
 *   another tool, not through this class) shows in verify answers within 2 × `versionTtlMs`, not at once as
 *   on a filesystem.
 *
 * @example
 * ```ts
 * const storage = new S3Storage({ endpoint: 'http://minio:9000', bucket: 'siegel', region: 'us-east-1',
 *   forcePathStyle: true });
 * await storage.assertReachable();
 * await storage.put(`documents/${hash}.png`, bytes);
 * ```
 */
export class S3Storage implements FileStorage {
  readonly client: S3Client;
  /**
   * The client {@link stream} reads through: a pool of connections of its own, so that downloads — held
   * open as long as their clients take to read — never keep `HEAD`s, writes and other reads waiting for a
   * connection (which fail after 5 s). Unbounded here: its callers bound it (the download budget,
   * `MAX_DOWNLOAD_BUFFERED_BYTES` / 256 KiB downloads at once; the file checks, two at once).
   */
  readonly #streams: S3Client;
  readonly bucket: string;
  readonly #prefix: string;
  readonly #where: string;
  readonly #versionTtlMs: number;
  readonly #listPageSize: number | undefined;
  /** Stamps fetched by {@link statVersion}: key → the stamp and when it was fetched (ms). */
  readonly #versions = new Map<string, { stamp: string; fetchedAt: number }>();
  /** `HEAD`s on the way, per key (see {@link statVersion}). */
  readonly #heads = new Map<string, Promise<string | undefined>>();

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    const prefix = options.prefix ?? '';
    this.#prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.#where = `S3 bucket \`${options.bucket}\` at ${options.endpoint ?? `AWS S3 (${options.region})`}`;
    this.#versionTtlMs = options.versionTtlMs ?? S3_VERSION_TTL_MS;
    this.#listPageSize = options.listPageSize;
    const clientOf = (maxSockets: number) =>
      new S3Client({
        endpoint: options.endpoint,
        region: options.region,
        forcePathStyle: options.forcePathStyle,
        credentials: options.credentials,
        maxAttempts: options.maxAttempts,
        // Only the checksums the S3 API requires: many S3-compatible stores refuse the CRC32 trailers the SDK
        // adds by default. Writes carry Content-MD5, which every store checks.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: {
          connectionTimeout: 5000,
          // Idle time allowed within a request; a store that stops answering mid-request fails it.
          socketTimeout: 30_000,
          httpAgent: { keepAlive: true, maxSockets },
          httpsAgent: { keepAlive: true, maxSockets },
        },
      });
    this.client = clientOf(options.maxSockets ?? 50);
    this.#streams = clientOf(Number.POSITIVE_INFINITY);
  }

  /** The object key of storage key `key` (validated as {@link isStorageKey}). */
  private objectKey(key: string): string {
    if (!isStorageKey(key)) throw new Error(`Invalid storage key \`${key}\``);
    return `${this.#prefix}${key}`;
  }

  /** Run `send`, turning the SDK's failures into the errors {@link S3Storage} documents. */
  async #call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw classifyS3Error(error, what, this.#where) ?? error;
    }
  }

  /**
   * Check that the bucket can be reached with these credentials (`HeadBucket`), for the server's start.
   *
   * @throws {StoreUnavailableError} when the store cannot be reached; `S3ConfigurationError` when the bucket
   *   is missing or the credentials are refused. Either names the endpoint and the bucket in one line.
   */
  async assertReachable(): Promise<void> {
    await this.#call('HeadBucket', () => this.client.send(new HeadBucketCommand({ Bucket: this.bucket })));
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const Key = this.objectKey(key);
    const ContentMD5 = createHash('md5').update(data).digest('base64');
    // The type the service itself serves the file with, for clients sent to the store (`presignGet`).
    const ContentType =
      contentTypeOf(key.slice(key.lastIndexOf('.') + 1), data) ?? 'application/octet-stream';
    this.#versions.delete(key);
    await this.#call(`PUT \`${key}\``, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: data,
          ContentLength: data.byteLength,
          ContentMD5,
          ContentType,
        }),
      ),
    );
  }

  /** `GetObject` of `key` through `client`, `undefined` when it is missing. */
  async #getObject(
    key: string,
    client = this.client,
  ): Promise<{ body: Readable; length: number | undefined } | undefined> {
    const Key = this.objectKey(key);
    let output: GetObjectCommandOutput;
    try {
      output = await client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw classifyS3Error(error, `GET \`${key}\``, this.#where) ?? error;
    }
    // In Node the SDK's body is the HTTP response (an `IncomingMessage`).
    return { body: output.Body as Readable, length: output.ContentLength };
  }

  async get(key: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
    const object = await this.#getObject(key);
    if (object === undefined) return undefined;
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.#chunks(key, object.body)) chunks.push(chunk);
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    if (object.length !== undefined && bytes.byteLength !== object.length) {
      throw new StoreUnavailableError(
        `GET \`${key}\` on ${this.#where} failed, the store is unavailable: ${bytes.byteLength} of ${object.length} bytes arrived`,
      );
    }
    return bytes;
  }

  /**
   * The object's bytes as they arrive (chunks of the HTTP response, at most 64 KiB each, never all of it in
   * memory), through a pool of connections of its own. A reader that stops early (`break`, `return`, a
   * thrown error) closes the response, which frees the connection; a reader must iterate the result (or call
   * its `return`) to free it. A reader that takes nothing for 30 s loses the connection (the store's idle
   * timeout): the iteration then fails with {@link StoreUnavailableError}.
   */
  async stream(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const object = await this.#getObject(key, this.#streams);
    return object === undefined ? undefined : this.#chunks(key, object.body);
  }

  /** `body`'s chunks; a failure mid-way is the store's, and the response is closed however the reader ends. */
  async *#chunks(key: string, body: Readable): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body) yield chunk as Uint8Array;
    } catch (error) {
      throw new StoreUnavailableError(
        `GET \`${key}\` on ${this.#where} failed mid-way, the store is unavailable: ${(error as Error).message}`,
        5,
        { cause: error },
      );
    } finally {
      body.destroy();
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    this.#versions.delete(key);
    // S3 answers 204 for a missing key too.
    await this.#call(`DELETE \`${key}\``, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })),
    );
  }

  async *list(prefix: string): AsyncIterable<string> {
    let ContinuationToken: string | undefined;
    do {
      const page = await this.#call(`LIST \`${prefix}\``, () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: `${this.#prefix}${prefix}`,
            ContinuationToken,
            MaxKeys: this.#listPageSize,
          }),
        ),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(this.#prefix.length);
        if (key !== undefined && isStorageKey(key)) yield key;
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
  }

  /**
   * `{ETag}:{size}:{LastModified ms}` of the object now (one `HEAD`), or `undefined` when it is missing.
   * Remembered for {@link readVersion}. Calls for a key while its `HEAD` is on the way share it.
   */
  statVersion(key: string): Promise<string | undefined> {
    const running = this.#heads.get(key);
    if (running !== undefined) return running;
    const head = this.#head(key).finally(() => this.#heads.delete(key));
    this.#heads.set(key, head);
    return head;
  }

  async #head(key: string): Promise<string | undefined> {
    const Key = this.objectKey(key);
    const fetchedAt = Date.now();
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      const stamp = `${head.ETag}:${head.ContentLength}:${head.LastModified?.getTime()}`;
      if (this.#versions.size >= MAX_VERSIONS) this.#versions.clear();
      this.#versions.set(key, { stamp, fetchedAt });
      return stamp;
    } catch (error) {
      this.#versions.delete(key);
      if (isMissing(error)) return undefined;
      throw classifyS3Error(error, `HEAD \`${key}\``, this.#where) ?? error;
    }
  }

  /**
   * The stamp {@link statVersion} fetched for `key` less than `versionTtlMs` ago; one up to twice that old
   * while a `HEAD` in the background fetches it anew (started here, one at a time); else `undefined` (S3 has
   * no synchronous look at an object). Writes and deletes through this instance forget the key's stamp.
   */
  readVersion(key: string): string | undefined {
    const known = this.#versions.get(key);
    if (known === undefined) return undefined;
    const age = Date.now() - known.fetchedAt;
    if (age < this.#versionTtlMs) return known.stamp;
    // A failed refresh forgets the stamp (#head): the next check asks S3 itself and answers what it says.
    if (!this.#heads.has(key)) void this.statVersion(key).catch(() => undefined);
    return age < 2 * this.#versionTtlMs ? known.stamp : undefined;
  }

  /** A presigned `GET` URL of `key`, valid for `seconds` (1 s to 7 days). Signing makes no request. */
  async presignGet(key: string, seconds: number): Promise<string> {
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
      throw new Error(`A presigned URL lives 1 to ${MAX_PRESIGN_SECONDS} seconds, not ${seconds}`);
    }
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
    return this.#call(`presign \`${key}\``, () => getSignedUrl(this.client, command, { expiresIn: seconds }));
  }

  /** Close the connections kept to the store. */
  close(): void {
    this.client.destroy();
    this.#streams.destroy();
  }
}

/** Whether the SDK's `error` says the object is missing (`NoSuchKey`; a `HEAD`'s bare 404). */
function isMissing(error: unknown): boolean {
  const shape = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (shape.name === 'NoSuchBucket') return false;
  return shape.name === 'NoSuchKey' || shape.name === 'NotFound' || shape.$metadata?.httpStatusCode === 404;
}
