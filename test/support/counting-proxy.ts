import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy saw of one request. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** Events in a sign request (`{ events: [...] }` or `{ event }`), else 0. */
  events: number;
  /** Their kinds, in order (a run signs its pages, kind 1063, apart from its site manifest, 35128/15128). */
  kinds: number[];
}

/** A loopback reverse proxy in front of a real bunker that counts requests per method and path. */
export interface CountingProxy {
  /** Base URL to use as `BUNKER_URL`. */
  url: string;
  /** Every request since the last {@link CountingProxy.reset}, in order. */
  requests: ProxiedRequest[];
  /** Requests to `METHOD path` (exact) since the last reset. */
  count(method: string, path: string): number;
  /**
   * Sign requests (`POST /api/keys/{name}/sign`, `POST /api/sign`) since the last reset; with `kind`, those
   * holding an event of that kind.
   */
  signRequests(kind?: number): number;
  /** Events in those sign requests; with `kind`, those of that kind. */
  signedEvents(kind?: number): number;
  /**
   * Called for each request before it is forwarded (after it is counted). Return `false` to hold it back
   * forever (e.g. after killing the client mid-batch).
   */
  onRequest: ((request: ProxiedRequest) => boolean | undefined) | undefined;
  reset(): void;
  close(): Promise<void>;
}

const SIGN_ROUTE = /^\/api\/(keys\/[^/]+\/sign|sign)$/;

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Start a counting proxy (node:http) forwarding everything to `target`, e.g. a bunker from `startBunker()`,
 * for assertions like "0 sign requests".
 *
 * @example
 * ```ts
 * const proxy = await startCountingProxy(bunker.url);
 * // … run `siegel sign` with BUNKER_URL=proxy.url …
 * expect(proxy.signRequests()).toBe(0);
 * ```
 */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const proxy: CountingProxy = {
    url: '',
    requests: [],
    onRequest: undefined,
    count: (method, path) => proxy.requests.filter((r) => r.method === method && r.path === path).length,
    signRequests: (kind) =>
      proxy.requests.filter(
        (r) =>
          r.method === 'POST' && SIGN_ROUTE.test(r.path) && (kind === undefined || r.kinds.includes(kind)),
      ).length,
    signedEvents: (kind) =>
      proxy.requests.reduce(
        (sum, r) => sum + (kind === undefined ? r.events : r.kinds.filter((k) => k === kind).length),
        0,
      ),
    reset: () => {
      proxy.requests = [];
    },
    close: async () => {},
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    let events = 0;
    let kinds: number[] = [];
    if (method === 'POST' && SIGN_ROUTE.test(path)) {
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { events?: unknown[]; event?: unknown };
        const list = Array.isArray(parsed.events) ? parsed.events : parsed.event ? [parsed.event] : [];
        events = list.length;
        kinds = list.map((event) => Number((event as { kind?: unknown } | null)?.kind));
      } catch {}
    }
    const seen: ProxiedRequest = { method, path, events, kinds };
    proxy.requests.push(seen);
    if (proxy.onRequest?.(seen) === false) return;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (
        typeof value === 'string' &&
        !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)
      ) {
        headers[name] = value;
      }
    }
    try {
      const upstream = await fetch(new URL(request.url ?? '/', target), {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: new Uint8Array(body) }),
      });
      const out = Buffer.from(await upstream.arrayBuffer());
      const outHeaders: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
          outHeaders[name] = value;
      });
      response.writeHead(upstream.status, { ...outHeaders, 'content-length': String(out.length) }).end(out);
    } catch (error) {
      response.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
