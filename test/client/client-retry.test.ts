// Issue 26, acceptance 1: a 503 with `Retry-After` is retried after the stated delay. A small HTTP server of
// the test's own stands in front of the real server: it answers the first request(s) 503 `SERVER_BUSY` with
// `Retry-After` (as the server's admission control does), then passes requests through. The stated delay is
// a lower bound the client must respect (a retry before it is a bug); how much later it comes is not tested.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  embedAuthor,
  RateLimitedError,
  ServerBusyError,
  type SiegelApiError,
} from '../../packages/client/src/index.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';

let bunker: RunningBunker;
let server: RunningServer;

beforeAll(async () => {
  bunker = await useBunker();
  server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
});
afterAll(async () => {
  await server?.stop();
  await bunker?.stop();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
});

/** What the front server does with request number `index` (0-based): answer busy, or pass it through. */
type Plan = (index: number) => { retryAfter: string } | 'pass';

interface FrontServer {
  url: string;
  /** When each request arrived (ms, `performance.now()`), in order. */
  arrivals: number[];
  /** Called when a request arrives (after it is counted). */
  onArrival?: () => void;
  /** Called when a busy answer has been sent. */
  onBusySent?: () => void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An HTTP server in front of `target` that answers 503 `SERVER_BUSY` with `Retry-After` as `plan` says. */
async function startFront(target: string, plan: Plan): Promise<FrontServer> {
  const front: FrontServer = { url: '', arrivals: [], close: async () => {} };
  const http: Server = createServer(async (request, response) => {
    const index = front.arrivals.push(performance.now()) - 1;
    front.onArrival?.();
    const body = await readBody(request);
    const step = plan(index);
    if (step !== 'pass') {
      response.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': step.retryAfter });
      response.end(
        JSON.stringify({ success: false, error: 'SERVER_BUSY', message: 'Busy; retry later' }),
        () => front.onBusySent?.(),
      );
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !['host', 'connection', 'transfer-encoding', 'content-length'].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers,
      ...(request.method === 'GET' ? {} : { body: new Uint8Array(body) }),
    });
    response.writeHead(answer.status, {
      'Content-Type': answer.headers.get('Content-Type') ?? 'application/json',
    });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  front.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  front.close = () => new Promise((resolve) => http.close(() => resolve()));
  return front;
}

/** A PNG naming an author, different for each `seed` (so each is signed anew). */
async function photo(seed: number): Promise<Uint8Array> {
  const background = { r: seed % 256, g: (seed * 7) % 256, b: 90 };
  const plain = await sharp({ create: { width: 6, height: 6, channels: 3, background } })
    .png()
    .toBuffer();
  return embedAuthor(plain, { author: 'Ana Lima', title: `Retry ${seed}` });
}

describe('retries of 503 and 429 after Retry-After', () => {
  it('retries a 503 `Retry-After: 1` no sooner than one second later, and signs', async () => {
    const front = await startFront(server.url, (index) => (index === 0 ? { retryAfter: '1' } : 'pass'));
    try {
      const bytes = await photo(1);
      const result = await createClient({ baseUrl: front.url, token: server.token }).sign(bytes);
      expect(result.alreadySigned).toBe(false);
      expect(result.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(front.arrivals).toHaveLength(2);
      const [first, second] = front.arrivals as [number, number];
      expect(second - first).toBeGreaterThanOrEqual(1000);
    } finally {
      await front.close();
    }
  });

  it('reads `Retry-After` as an HTTP date too, and retries no sooner than that date', async () => {
    let date = 0;
    const front = await startFront(server.url, (index) => {
      if (index > 0) return 'pass';
      date = Math.floor(Date.now() / 1000) * 1000 + 2000; // HTTP dates have whole seconds
      return { retryAfter: new Date(date).toUTCString() };
    });
    let retriedAt = 0;
    front.onArrival = () => {
      if (front.arrivals.length === 2) retriedAt = Date.now();
    };
    try {
      const result = await createClient({ baseUrl: front.url, token: server.token }).sign(await photo(2));
      expect(result.alreadySigned).toBe(false);
      expect(front.arrivals).toHaveLength(2);
      expect(retriedAt).toBeGreaterThanOrEqual(date);
    } finally {
      await front.close();
    }
  });

  it('an abort during the wait rejects at once with AbortError, and nothing is sent again', async () => {
    const front = await startFront(server.url, () => ({ retryAfter: '30' }));
    const controller = new AbortController();
    try {
      const client = createClient({ baseUrl: front.url, token: server.token });
      // Abort shortly after the first answer (503, wait 30 s) is sent: the client is then waiting.
      front.onBusySent = () => setTimeout(() => controller.abort(), 100);
      const signing = client.sign(await photo(3), { signal: controller.signal });
      const error = await signing.catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'AbortError' });
      expect(front.arrivals).toHaveLength(1);
      // verify() takes the signal too, and an aborted signal sends nothing.
      await expect(client.verify('ab'.repeat(32), { signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(front.arrivals).toHaveLength(1);
    } finally {
      await front.close();
    }
  });

  it('does not wait past maxRetryDelayMs: the error says how long the server asked for', async () => {
    const front = await startFront(server.url, () => ({ retryAfter: '120' }));
    try {
      const error = (await createClient({ baseUrl: front.url, token: server.token })
        .sign(await photo(4))
        .catch((caught: unknown) => caught)) as SiegelApiError;
      expect(error).toBeInstanceOf(ServerBusyError);
      expect(error).toMatchObject({ code: 'SERVER_BUSY', status: 503, retryAfter: 120 });
      expect(front.arrivals).toHaveLength(1);
    } finally {
      await front.close();
    }
  });

  it('gives up after `retries` attempts when the server stays busy', async () => {
    const front = await startFront(server.url, () => ({ retryAfter: '0' }));
    try {
      const error = await createClient({ baseUrl: front.url, token: server.token, retries: 2 })
        .inspect(await photo(5))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServerBusyError);
      expect(front.arrivals).toHaveLength(3);
    } finally {
      await front.close();
    }
  });

  it("the real server's 429 (SIGN_RATE_LIMIT) arrives as RateLimitedError with its Retry-After", async () => {
    const limited = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1' } });
    try {
      const client = createClient({ baseUrl: limited.url, token: limited.token, maxRetryDelayMs: 0 });
      await client.inspect(await photo(6));
      const error = (await client
        .inspect(await photo(6))
        .catch((caught: unknown) => caught)) as SiegelApiError;
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(error.retryAfter).toBeGreaterThan(0);
      expect(error.retryAfter).toBeLessThanOrEqual(60);
    } finally {
      await limited.stop();
      await rm(limited.dataDir, { recursive: true, force: true });
    }
  });
});
