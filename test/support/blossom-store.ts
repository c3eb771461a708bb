// A minimal Blossom store, written for the tests from the BUDs' text: BUD-01 `GET`/`HEAD /<sha256>` (an
// optional extension after the hash), BUD-02 `PUT /upload` with a BUD-11 auth event (kind 24242, `t`
// upload, an `x` tag naming the body's sha256, an `expiration` in the future, `created_at` not in the
// future, the signature checked with nostr-tools' verifyEvent). Blobs live in memory. Errors answer with
// the status and an `X-Reason` header (BUD-01). A real server on a free loopback port.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Event, verifyEvent } from 'nostr-tools/pure';

/** A running {@link startBlossomStore}. */
export interface BlossomStore {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Stored blobs by sha256. */
  blobs: Map<string, { bytes: Buffer; type: string }>;
  /** Every request: method, path, status. */
  requests: Array<{ method: string; path: string; status: number }>;
  /** Every auth event an accepted upload carried. */
  authEvents: Event[];
  close(): Promise<void>;
}

/** Options of {@link startBlossomStore}. */
export interface BlossomStoreOptions {
  /** Largest body `PUT /upload` takes; larger: 413 (default: no limit). */
  maxBytes?: number;
  /** Only these pubkeys may upload (default: any that signs a valid auth event); others: 401. */
  pubkeys?: string[];
}

const HASH_PATH = /^\/([0-9a-f]{64})(\.[a-z0-9]+)?$/;

/**
 * Start the store on a free loopback port.
 *
 * @example
 * ```ts
 * const store = await startBlossomStore({ maxBytes: 1024 });
 * // PUT ${store.url}/upload …
 * await store.close();
 * ```
 */
export async function startBlossomStore(options: BlossomStoreOptions = {}): Promise<BlossomStore> {
  const blobs: BlossomStore['blobs'] = new Map();
  const requests: BlossomStore['requests'] = [];
  const authEvents: Event[] = [];
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://store').pathname;
    const answer = (status: number, body: string | Buffer = '', headers: Record<string, string> = {}) => {
      requests.push({ method: request.method ?? '', path, status });
      response.writeHead(status, { 'access-control-allow-origin': '*', ...headers });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    const refuse = (status: number, reason: string) => answer(status, reason, { 'x-reason': reason });
    const hash = HASH_PATH.exec(path)?.[1];
    if ((request.method === 'GET' || request.method === 'HEAD') && hash) {
      const blob = blobs.get(hash);
      if (!blob) return refuse(404, 'blob not found');
      return answer(200, blob.bytes, {
        'content-type': blob.type,
        'content-length': String(blob.bytes.length),
      });
    }
    if (request.method === 'PUT' && path === '/upload') {
      const declared = Number(request.headers['content-length']);
      if (options.maxBytes !== undefined && declared > options.maxBytes) {
        request.resume();
        return refuse(413, `blobs over ${options.maxBytes} bytes are not stored here`);
      }
      const bytes = await readBody(request);
      if (options.maxBytes !== undefined && bytes.length > options.maxBytes)
        return refuse(413, `blobs over ${options.maxBytes} bytes are not stored here`);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const problem = authProblem(request.headers.authorization, sha256, options.pubkeys);
      if (typeof problem === 'string') return refuse(401, problem);
      authEvents.push(problem);
      const type = String(request.headers['content-type'] ?? 'application/octet-stream');
      const existed = blobs.has(sha256);
      blobs.set(sha256, { bytes, type });
      const address = server.address() as AddressInfo;
      return answer(
        existed ? 200 : 201,
        JSON.stringify({
          url: `http://127.0.0.1:${address.port}/${sha256}`,
          sha256,
          size: bytes.length,
          type,
          uploaded: Math.floor(Date.now() / 1000),
        }),
        { 'content-type': 'application/json' },
      );
    }
    return refuse(404, 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    blobs,
    requests,
    authEvents,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The auth event of `header` when it allows uploading `sha256` (BUD-11), else why not. */
function authProblem(header: string | undefined, sha256: string, pubkeys?: string[]): Event | string {
  const encoded = /^Nostr ([A-Za-z0-9+/=_-]+)$/.exec(header ?? '')?.[1];
  if (!encoded) return 'missing Authorization: Nostr <base64 event>';
  let event: Event;
  try {
    event = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Event;
  } catch {
    return 'the auth event is not JSON';
  }
  if (!verifyEvent(event)) return 'the auth event has a bad id or signature';
  if (event.kind !== 24242) return `the auth event is kind ${event.kind}, not 24242`;
  const values = (name: string) => event.tags.filter((tag) => tag[0] === name).map((tag) => tag[1]);
  const now = Math.floor(Date.now() / 1000);
  if (event.created_at > now + 60) return 'the auth event is from the future';
  const expiration = Number(values('expiration')[0]);
  if (!Number.isFinite(expiration) || expiration <= now)
    return 'the auth event has expired or has no expiration';
  if (!values('t').includes('upload')) return 'the auth event is not for upload (t tag)';
  if (!values('x').includes(sha256)) return `the auth event does not name this blob (x ${sha256})`;
  if (pubkeys && !pubkeys.includes(event.pubkey)) return `pubkey ${event.pubkey} may not upload here`;
  return event;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
