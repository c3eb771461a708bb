// The Blossom client: which server URLs Siegel takes, `HEAD /<sha256>` (BUD-01: does the server hold the
// blob?) and `PUT /upload` (BUD-02, with a BUD-11 `Authorization` header the caller signs) for `siegel
// publish --blossom`, and `GET /<sha256>` (BUD-01, bounded) for `siegel verify` reading a layout-blob
// manifest's path list. Bytes and HTTP only: what to upload and who signs is pipeline/publish-blossom.ts's,
// checking what was read is the caller's.
import { concatBytes } from '@noble/hashes/utils.js';
import { SiegelError } from '../errors.js';
import { isLoopbackHost } from './address-policy.js';

/**
 * Blossom server URLs as `--blossom`, `SIEGEL_BLOSSOM` and the option `blossom` take them: each an absolute
 * `https://` URL, or `http://` on a loopback host (a local or test store: no blob or auth event leaves the
 * machine in cleartext), without user info, query or fragment. Trimmed, written without a trailing `/`,
 * blanks and duplicates dropped, in the given order.
 *
 * @example
 * ```ts
 * parseBlossomServers(['https://blossom.example/']); // ['https://blossom.example']
 * parseBlossomServers(['http://blossom.example']);   // throws: must be an https:// URL
 * ```
 * @throws {SiegelError} `invalid_options` quoting the bad value and naming `source`.
 */
export function parseBlossomServers(values: readonly string[], source = 'blossom'): string[] {
  const servers: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    const cleartextOk = url?.protocol === 'http:' && isLoopbackHost(url.hostname);
    if (
      !url ||
      (url.protocol !== 'https:' && !cleartextOk) ||
      url.username ||
      url.password ||
      url.search ||
      url.hash
    ) {
      throw new SiegelError(
        'invalid_options',
        `Blossom server \`${value}\` (${source}) must be an https:// URL (http:// only on a loopback host), without query or fragment`,
      );
    }
    const server = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    if (!servers.includes(server)) servers.push(server);
  }
  return servers;
}

/** `SIEGEL_BLOSSOM`: comma-separated Blossom servers as {@link parseBlossomServers} takes them (blank: none). */
export function readBlossomServersFromEnv(value: string | undefined): string[] {
  return value?.trim() ? parseBlossomServers(value.split(','), 'SIEGEL_BLOSSOM') : [];
}

/** The `Content-Type` a blob is uploaded with, by its path's extension (a gateway forwards the store's). */
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json',
  map: 'application/json',
  webmanifest: 'application/manifest+json',
  xml: 'application/xml',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  wasm: 'application/wasm',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/**
 * The media type of a file by its path's extension (`application/octet-stream` for an unknown one).
 *
 * @example
 * ```ts
 * blobContentType('/blog/index.html'); // 'text/html; charset=utf-8'
 * ```
 */
export function blobContentType(path: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/** How {@link hasBlob} and {@link putBlob} reach a server. */
export interface BlossomRequestOptions {
  /** `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Milliseconds for one request, from sending to the last byte of the answer (default 60 000). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Whether `server` holds the blob `sha256` (BUD-01 `HEAD /<sha256>`: 2xx yes, 404 no).
 *
 * @example
 * ```ts
 * if (!(await hasBlob('https://blossom.example', sha))) await putBlob(…);
 * ```
 * @throws {Error} for any other answer, or no answer, with a message that says which.
 */
export async function hasBlob(
  server: string,
  sha256: string,
  options: BlossomRequestOptions = {},
): Promise<boolean> {
  const response = await request(`${server}/${sha256}`, { method: 'HEAD' }, options, 'HEAD');
  if (response.ok) return true;
  if (response.status === 404) return false;
  throw new Error(`HEAD /${sha256} answered ${describeStatus(response)}`);
}

/**
 * Upload one blob (BUD-02 `PUT /upload`, the bytes as the body, `X-SHA-256` and the BUD-11
 * `authorization` header the caller made). Resolves once the server answered 2xx with a blob descriptor
 * for this hash (or none: a descriptor is checked when there is one).
 *
 * @example
 * ```ts
 * await putBlob('https://blossom.example', bytes, sha, { authorization: `Nostr ${base64}`, contentType: 'text/css' });
 * ```
 * @throws {Error} naming the status and the server's `X-Reason` (401 bad auth, 413 too large, …), or a
 *   descriptor of another hash.
 */
export async function putBlob(
  server: string,
  bytes: Uint8Array,
  sha256: string,
  upload: { authorization: string; contentType: string },
  options: BlossomRequestOptions = {},
): Promise<void> {
  const response = await request(
    `${server}/upload`,
    {
      method: 'PUT',
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: {
        authorization: upload.authorization,
        'content-type': upload.contentType,
        'x-sha-256': sha256,
      },
    },
    options,
    'PUT /upload',
  );
  const text = await response.text().catch(() => '');
  if (!response.ok) throw new Error(`PUT /upload answered ${describeStatus(response)}`);
  let stored: unknown;
  try {
    stored = (JSON.parse(text) as { sha256?: unknown }).sha256;
  } catch {
    stored = undefined;
  }
  if (typeof stored === 'string' && stored !== sha256)
    throw new Error(`PUT /upload stored the bytes as \`${stored}\`, not as \`${sha256}\``);
}

/**
 * The blob `sha256` from `server` (BUD-01 `GET /<sha256>`), read up to `maxBytes` and no further: a server
 * that sends more is cut off. The bytes are not checked here: the caller hashes them against what it expects.
 *
 * @example
 * ```ts
 * const bytes = await getBlob('https://blossom.example', sha, 1 << 20, { timeoutMs: 10_000 });
 * ```
 * @throws {Error} naming the status for a non-2xx answer, no answer in time, or a body over `maxBytes`.
 */
export async function getBlob(
  server: string,
  sha256: string,
  maxBytes: number,
  options: BlossomRequestOptions = {},
): Promise<Uint8Array> {
  const what = `GET /${sha256}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const response = await request(`${server}/${sha256}`, { method: 'GET' }, options, what);
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`${what} answered ${describeStatus(response)}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`${what}: the blob is ${declared} bytes, more than the ${maxBytes} expected`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      length += next.value.length;
      if (length > maxBytes) {
        await reader?.cancel().catch(() => {});
        throw new Error(`${what}: the blob is more than the ${maxBytes} bytes expected`);
      }
      chunks.push(next.value);
    }
  } catch (error) {
    if ((error as Error)?.name === 'TimeoutError')
      throw new Error(`${what}: no answer within ${timeoutMs / 1000} s`);
    throw error;
  }
  return concatBytes(...chunks);
}

async function request(
  url: string,
  init: RequestInit,
  options: BlossomRequestOptions,
  what: string,
): Promise<Response> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    return await (options.fetch ?? fetch)(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'TimeoutError') throw new Error(`${what}: no answer within ${timeoutMs / 1000} s`);
    const cause = (error as { cause?: { code?: string } })?.cause?.code;
    throw new Error(`${what}: cannot connect${cause ? ` (${cause})` : ''}`);
  }
}

/** `413 Payload Too Large — <X-Reason>`: the status, and the server's reason when it gives one (BUD-01). */
function describeStatus(response: Response): string {
  const reason = response.headers.get('x-reason')?.trim().slice(0, 300);
  return `${response.status}${response.statusText ? ` ${response.statusText}` : ''}${reason ? ` — ${reason}` : ''}`;
}
