// HTTP helpers for the bunker's hardening tests: requests from a chosen loopback source address (the
// bunker throttles per client address), paths sent exactly as written, and bodies streamed in chunks
// that never end unless told to.
import { type IncomingHttpHeaders, request } from 'node:http';

/** A response read to its end. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  method?: string;
  /** Sent exactly as written (no normalisation of `..` or percent-encoding). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Source address, e.g. `127.0.0.2`: any address of 127.0.0.0/8 reaches a bunker on 127.0.0.1. */
  localAddress?: string;
  /** Reject when no complete response came within this long. Default: 20 s. */
  timeoutMs?: number;
}

/** One request on a fresh connection, read to its end. */
export function rawRequest(url: string, options: RawRequestOptions): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${options.path}`,
      {
        method: options.method ?? 'GET',
        headers: { connection: 'close', ...options.headers },
        agent: false,
        ...(options.localAddress !== undefined && { localAddress: options.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(
        new Error(
          `${options.method ?? 'GET'} ${options.path}: no answer within ${options.timeoutMs ?? 20_000} ms`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(options.body);
  });
}

/** What {@link streamRequest} saw. */
export interface StreamedResponse extends RawResponse {
  /** Body bytes written before the response's head arrived. */
  bytesSentBeforeAnswer: number;
  /** Whether the whole body had been sent (and the request ended) before the answer. */
  endedBeforeAnswer: boolean;
  /** Resolves once the server has closed the connection. */
  closed: Promise<void>;
}

/**
 * A request with `Transfer-Encoding: chunked` (no `Content-Length`, unless given) whose body is written chunk by chunk,
 * `chunkBytes` every `intervalMs`, until the answer arrives, or until `totalBytes` have been written (then
 * the request is ended when `end` is set, or left open). Rejects when no answer came within `timeoutMs`.
 */
export function streamRequest(
  url: string,
  options: RawRequestOptions & {
    chunk: string;
    intervalMs: number;
    totalBytes?: number;
    end?: boolean;
    /** Send this `Content-Length` instead of `Transfer-Encoding: chunked`. */
    contentLength?: number;
  },
): Promise<StreamedResponse> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let ended = false;
    let answered = false;
    let writer: NodeJS.Timeout | undefined;
    let markClosed: () => void = () => {};
    const closed = new Promise<void>((r) => {
      markClosed = r;
    });
    const req = request(
      `${url}${options.path}`,
      {
        method: options.method ?? 'POST',
        headers: {
          ...(options.contentLength === undefined
            ? { 'transfer-encoding': 'chunked' }
            : { 'content-length': String(options.contentLength) }),
          ...options.headers,
        },
        agent: false,
        ...(options.localAddress !== undefined && { localAddress: options.localAddress }),
      },
      (res) => {
        answered = true;
        clearInterval(writer);
        const before = sent;
        const endedBefore = ended;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            bytesSentBeforeAnswer: before,
            endedBeforeAnswer: endedBefore,
            closed,
          });
        });
      },
    );
    req.on('close', () => markClosed());
    req.on('error', (error) => {
      // Once answered, the server closing the connection under an unfinished body is what we want.
      if (answered) return;
      clearTimeout(timer);
      clearInterval(writer);
      reject(error);
    });
    req.on('socket', (socket) => socket.on('close', () => markClosed()));
    const timer = setTimeout(() => {
      clearInterval(writer);
      req.destroy();
      reject(
        new Error(
          `${options.path}: no answer within ${options.timeoutMs ?? 20_000} ms (${sent} body bytes sent, ${ended ? 'ended' : 'still open'})`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    const write = () => {
      // Backpressure: a server that stopped reading must not make this side buffer without end (nor end
      // in EPIPE before the answer, already sent, is read).
      if (answered || ended || req.destroyed || req.writableLength > 1024 * 1024) return;
      if (options.totalBytes !== undefined && sent >= options.totalBytes) {
        clearInterval(writer);
        if (options.end) {
          ended = true;
          req.end();
        }
        return;
      }
      sent += Buffer.byteLength(options.chunk);
      req.write(options.chunk);
    };
    req.flushHeaders();
    write();
    writer = setInterval(write, options.intervalMs);
  });
}

/** Sign in to `/admin` with the admin token over HTTP; resolves with the session cookie (`name=value`). */
export async function dashboardCookie(url: string, adminToken: string): Promise<string> {
  const res = await rawRequest(url, {
    method: 'POST',
    path: '/admin/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ token: adminToken }).toString(),
  });
  const cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  if (res.status !== 303 || cookie === '') throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return cookie;
}
