import type {
  AlreadySignedFile,
  FileRecord,
  InspectResult,
  SignedFile,
  SignResult,
  VerifyResult,
} from './answers.js';
import { errorFromAnswer, InvalidHashError, SiegelApiError } from './errors.js';
import { type Answer, getJson, type HttpOptions } from './http.js';
import { RETRY_DEFAULTS, type RetryOptions } from './retry.js';
import { sendUpload } from './upload.js';
import { type CallOptions, type FileInput, toBlob, type UploadOptions } from './upload-body.js';

export type { CallOptions, UploadOptions };

/** Options of {@link createClient}. */
export interface ClientOptions extends RetryOptions {
  /** The Siegel server, e.g. `https://siegel.example` (a path prefix is kept; no default). */
  baseUrl: string | URL;
  /**
   * A sign token (one of the server's `SIGN_API_TOKENS`) — or, in a browser, an upload token a backend
   * minted with `mintUploadToken` — sent to the upload routes only (default none).
   */
  token?: string;
  /** The fetch to use (default the runtime's `fetch`): a Workers service binding's, a test's, a proxy's. */
  fetch?: typeof fetch;
}

/** A client of one Siegel server. */
export interface SiegelClient {
  /**
   * Sign a file: it must name its author (`embedAuthor` writes one in). Resolves with the signed record; a
   * file signed here before resolves with that record and `alreadySigned: true` (nothing new is signed).
   *
   * @throws {AuthorRequiredError} the file names no real author.
   * @throws {InvalidFormatError} not a supported type, or damaged (`limit` when a reading limit was hit).
   * @throws {SiegelApiError} another server code (its subclass), `NetworkError`, or the signal's reason.
   */
  sign(file: FileInput, options?: UploadOptions): Promise<SignResult>;
  /** What signing would read from a file (author, title, type, hash, `signable`), without signing it. */
  inspect(file: FileInput, options?: UploadOptions): Promise<InspectResult>;
  /** The server's verdict on a hash (64 hex characters, `sha256:` prefix allowed): `found` false if unknown. */
  verify(hash: string, options?: CallOptions): Promise<VerifyResult>;
  /**
   * The record of a signed file (`/events/{hash}/index.json`), as its signed event states it.
   *
   * @throws {NotFoundError} nothing with this hash was signed here.
   * @throws {RecordAlteredError} the stored event no longer verifies.
   */
  record(hash: string, options?: CallOptions): Promise<FileRecord>;
}

const OPTION_NAMES = new Set(['baseUrl', 'token', 'fetch', 'retries', 'maxRetryDelayMs', 'retryDelayMs']);

/**
 * A client of the Siegel server at `baseUrl`. Web APIs only (fetch, Blob, AbortSignal): the same code runs
 * in Node ≥ 20, browsers, Deno and Workers. Answers 429 and 503 are retried after their `Retry-After`.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: 'https://siegel.example', token: process.env.SIGN_TOKEN });
 * const result = await client.sign(bytes, { fileName: 'photo.webp' });
 * console.log(result.alreadySigned, result.urls.verify);
 * ```
 * @throws {SiegelApiError} `INVALID_OPTIONS` for a missing or malformed `baseUrl`, a bad number, an unknown option.
 */
export function createClient(options: ClientOptions): SiegelClient {
  const http = readOptions(options);
  const uploadTo = async (path: string, file: FileInput, call: UploadOptions): Promise<Answer> =>
    sendUpload(http, path, toBlob(file), call);

  const record = async (hash: string, call: CallOptions = {}): Promise<FileRecord> => {
    const normalized = normalizeHash(hash);
    const answer = await getJson(http, `/events/${normalized}/index.json`, call.signal);
    if (answer.status === 200) return answer.body as FileRecord;
    throw errorFromAnswer(answer.status, answer.body, answer.retryAfter);
  };

  return {
    async sign(file, call = {}) {
      const answer = await uploadTo('/api/sign-image-v2', file, call);
      if (answer.status === 200)
        return { ...(answer.body as Omit<SignedFile, 'alreadySigned'>), alreadySigned: false };
      const body = answer.body as { error?: unknown; hash?: unknown; message?: unknown } | undefined;
      if (answer.status === 409 && body?.error === 'ALREADY_SIGNED' && typeof body.hash === 'string') {
        const existing = await record(body.hash, call);
        const message = typeof body.message === 'string' ? body.message : 'This file was already signed';
        return { ...existing, alreadySigned: true, message } satisfies AlreadySignedFile;
      }
      throw errorFromAnswer(answer.status, answer.body, answer.retryAfter);
    },
    async inspect(file, call = {}) {
      const answer = await uploadTo('/api/inspect', file, call);
      if (answer.status === 200) return answer.body as InspectResult;
      throw errorFromAnswer(answer.status, answer.body, answer.retryAfter);
    },
    async verify(hash, call = {}) {
      const path = `/api/verify?hash=${encodeURIComponent(hash)}`;
      const answer = await getJson(http, path, call.signal);
      if (answer.status === 200) return { ...(answer.body as object), found: true } as VerifyResult;
      const body = answer.body as { error?: unknown } | undefined;
      if (answer.status === 404 && body?.error === undefined)
        return { ...(body as object), found: false } as VerifyResult;
      throw errorFromAnswer(answer.status, answer.body, answer.retryAfter);
    },
    record,
  };
}

/** A hash as the server reads one: trimmed, lower case, without `sha256:`. */
function normalizeHash(hash: string): string {
  const normalized = String(hash)
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  if (!/^[0-9a-f]{64}$/.test(normalized)) {
    throw new InvalidHashError({
      code: 'INVALID_HASH',
      message: `\`hash\` must be 64 hexadecimal characters (SHA-256), got \`${String(hash).slice(0, 100)}\``,
    });
  }
  return normalized;
}

/** `INVALID_OPTIONS`: a call's options are wrong (`message` says which). */
export function invalidOptions(message: string): SiegelApiError {
  return new SiegelApiError({ code: 'INVALID_OPTIONS', message });
}

/**
 * The checked, normalized options every request of a client shares (also `mintUploadToken`'s).
 *
 * @throws {SiegelApiError} `INVALID_OPTIONS`, as {@link createClient}.
 */
export function readOptions(options: ClientOptions): HttpOptions {
  if (options === null || typeof options !== 'object')
    throw invalidOptions('createClient needs `{ baseUrl }`');
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name)) throw invalidOptions(`Unknown option \`${name}\` of createClient`);
  }
  let base: URL;
  try {
    base = new URL(String(options.baseUrl));
  } catch {
    throw invalidOptions(`\`baseUrl\` must be an absolute URL, got \`${String(options.baseUrl)}\``);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw invalidOptions(`\`baseUrl\` must be an http(s) URL, got \`${base.href}\``);
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || /[\r\n]/.test(options.token))) {
    throw invalidOptions('`token` must be a string on one line');
  }
  const retry = { ...RETRY_DEFAULTS };
  for (const name of ['retries', 'maxRetryDelayMs', 'retryDelayMs'] as const) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0) {
      throw invalidOptions(`\`${name}\` must be a whole number ≥ 0, got \`${String(value)}\``);
    }
    retry[name] = value;
  }
  const given = options.fetch;
  if (given !== undefined && typeof given !== 'function') throw invalidOptions('`fetch` must be a function');
  return {
    baseUrl: base.href.replace(/\/+$/, ''),
    token: options.token,
    // Called through a wrapper: some runtimes refuse a `fetch` detached from its global ("Illegal invocation").
    fetch: given ?? ((input, init) => globalThis.fetch(input, init)),
    retry,
  };
}
