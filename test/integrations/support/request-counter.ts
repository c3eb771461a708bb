import { createServer, type Server } from 'node:http';

/** A loopback HTTP proxy in front of the bunker that counts sign requests and the events in them. */
export interface RequestCounter {
  /** Base URL to give the build as `BUNKER_URL`. */
  url: string;
  /** Sign requests seen since the last {@link RequestCounter.reset}. */
  signRequests: number;
  /** Events in those requests. */
  signedEvents: number;
  reset(): void;
  close(): Promise<void>;
}

const SIGN_ROUTE = /^\/api\/(keys\/[^/]+\/sign|sign)$/;

/** Start a counting proxy forwarding everything to `target` (the real bunker). */
export async function startRequestCounter(target: string): Promise<RequestCounter> {
  const counter = { signRequests: 0, signedEvents: 0 };
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'POST' && SIGN_ROUTE.test(path)) {
      counter.signRequests += 1;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { events?: unknown[]; event?: unknown };
        counter.signedEvents += Array.isArray(parsed.events) ? parsed.events.length : parsed.event ? 1 : 0;
      } catch {
        // not JSON: the bunker answers it; nothing to count
      }
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers.set(name, value);
    }
    try {
      const upstream = await fetch(new URL(request.url ?? '/', target), {
        method: request.method,
        headers,
        body: ['GET', 'HEAD'].includes(request.method ?? 'GET') ? undefined : body,
      });
      const answer = Object.fromEntries(upstream.headers);
      delete answer['content-encoding'];
      delete answer['content-length'];
      delete answer['transfer-encoding'];
      response.writeHead(upstream.status, answer);
      response.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (error) {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get signRequests() {
      return counter.signRequests;
    },
    get signedEvents() {
      return counter.signedEvents;
    },
    reset() {
      counter.signRequests = 0;
      counter.signedEvents = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as RequestCounter;
}
