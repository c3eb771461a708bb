// RelayPublisher against real relay processes (test/support/relay): what counts as published (`OK` true
// only), why the rest failed, timeouts, and that events are pipelined over one connection per relay.
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { RelayPublisher } from '@siegel/core';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

let relay: RunningRelay;
let refusing: RunningRelay;
const key = generateSecretKey();
let serial = 0;

/** `count` fresh kind-1 events (plain objects, as they travel). */
function makeEvents(count: number) {
  return Array.from({ length: count }, () => {
    const event = finalizeEvent(
      { kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: `note ${serial++}` },
      key,
    );
    return JSON.parse(JSON.stringify(event)) as typeof event;
  });
}

beforeAll(async () => {
  [relay, refusing] = await Promise.all([startRelay(), startRelay({ refuse: 'members only' })]);
});

afterAll(async () => {
  await Promise.all([relay?.stop(), refusing?.stop()]);
});

/**
 * A TCP proxy in front of `target` (`ws://127.0.0.1:PORT`) that counts connections. With `holdUntil`, it
 * passes the WebSocket handshake on, then holds every byte from the relay back until the client has sent
 * `holdUntil` bytes: a client that waits for one answer before it sends the next event never gets there.
 */
async function startProxy(target: string, holdUntil = 0) {
  const port = new URL(target).port;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    connections++;
    sockets.add(client);
    const upstream = createConnectionTo(Number(port));
    sockets.add(upstream);
    let handshakeDone = false;
    let sent = 0;
    const held: Buffer[] = [];
    const release = () => {
      for (const chunk of held.splice(0)) client.write(chunk);
    };
    client.on('data', (chunk: Buffer) => {
      if (handshakeDone) sent += chunk.length;
      upstream.write(chunk);
      if (sent >= holdUntil) release();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!handshakeDone) {
        handshakeDone = true;
        client.write(chunk);
        return;
      }
      if (sent >= holdUntil) client.write(chunk);
      else held.push(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${address.port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function createConnectionTo(port: number): Socket {
  return createConnection({ host: '127.0.0.1', port });
}

describe('RelayPublisher', () => {
  it('counts a relay only when it answers OK true; a refusing relay is not counted and says why', async () => {
    const events = makeEvents(3);
    const publisher = new RelayPublisher([relay.url, refusing.url]);
    try {
      const results = await publisher.publish(events);
      expect(results.map((result) => result.event.id)).toEqual(events.map((event) => event.id));
      for (const result of results) {
        expect(result.accepted).toEqual([relay.url]);
        expect(result.failed).toEqual([{ relay: refusing.url, reason: 'refused: blocked: members only' }]);
      }
      // A duplicate is `OK true` too: it counts.
      const again = await new RelayPublisher([relay.url]).publish(events.slice(0, 1));
      expect(again[0]?.accepted).toEqual([relay.url]);
    } finally {
      publisher.close();
    }
    const stored = await queryRelay(relay.url, { ids: events.map((event) => event.id) });
    expect(stored).toHaveLength(3);
    expect(await queryRelay(refusing.url, { ids: events.map((event) => event.id) })).toEqual([]);
  });

  it('reports a relay nobody listens on as `cannot connect`, and still publishes to the others', async () => {
    const down = `ws://127.0.0.1:${await freePort()}`;
    const publisher = new RelayPublisher([down, relay.url]);
    try {
      const results = await publisher.publish(makeEvents(4));
      for (const result of results) {
        expect(result.accepted).toEqual([relay.url]);
        expect(result.failed).toEqual([{ relay: down, reason: 'cannot connect' }]);
      }
    } finally {
      publisher.close();
    }
  });

  it('times out a relay that never completes the connection, and one that never answers', async () => {
    // Accepts TCP, never answers the WebSocket handshake.
    const held = new Set<Socket>();
    const silentTcp = createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silentTcp.listen(0, '127.0.0.1', resolve));
    // Completes the WebSocket handshake (RFC 6455), then reads and never answers an EVENT.
    const silentWs = createHttpServer();
    silentWs.on('upgrade', (request, socket) => {
      held.add(socket as Socket);
      const accept = createHash('sha1')
        .update(`${request.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      socket.resume();
    });
    await new Promise<void>((resolve) => silentWs.listen(0, '127.0.0.1', resolve));
    const tcpUrl = `ws://127.0.0.1:${(silentTcp.address() as { port: number }).port}`;
    const wsUrl = `ws://127.0.0.1:${(silentWs.address() as { port: number }).port}`;
    const publisher = new RelayPublisher([tcpUrl, wsUrl, relay.url], {
      connectTimeoutMs: 800,
      answerTimeoutMs: 800,
    });
    try {
      const [result] = await publisher.publish(makeEvents(1));
      expect(result?.accepted).toEqual([relay.url]);
      expect(result?.failed).toEqual([
        { relay: tcpUrl, reason: 'cannot connect: no connection within 0.8 s' },
        { relay: wsUrl, reason: 'timed out: no OK within 0.8 s' },
      ]);
    } finally {
      publisher.close();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silentWs.close(resolve));
      await new Promise((resolve) => silentTcp.close(resolve));
    }
  });

  it('pipelines: 200 events over one connection, all sent before the first OK comes back', async () => {
    const events = makeEvents(200);
    const bytes = events.reduce((sum, event) => sum + JSON.stringify(['EVENT', event]).length, 0);
    // Answers are held back until every event is on the wire: one-at-a-time sending would time out.
    const proxy = await startProxy(relay.url, bytes);
    const publisher = new RelayPublisher([proxy.url], { window: 200, answerTimeoutMs: 10_000 });
    try {
      const results = await publisher.publish(events);
      expect(results.filter((result) => result.accepted.length === 1)).toHaveLength(200);
      expect(proxy.connections()).toBe(1);
    } finally {
      publisher.close();
      await proxy.close();
    }
    expect(await queryRelay(relay.url, { ids: events.map((event) => event.id) })).toHaveLength(200);
  });

  it('keeps at most `window` events in flight on a connection', async () => {
    const events = makeEvents(6);
    const sizes = events.map((event) => JSON.stringify(['EVENT', event]).length);
    // Answers come only once all 6 are sent: with a window of 5 the sixth goes out only when the first
    // five have timed out — then the relay's answers come through, too late for those five.
    const proxy = await startProxy(
      relay.url,
      sizes.reduce((a, b) => a + b, 0),
    );
    const publisher = new RelayPublisher([proxy.url], { window: 5, answerTimeoutMs: 1_000 });
    try {
      const results = await publisher.publish(events);
      expect(results.slice(0, 5).map((result) => result.failed[0]?.reason)).toEqual(
        Array(5).fill('timed out: no OK within 1 s'),
      );
      expect(results[5]?.accepted).toEqual([proxy.url]);
    } finally {
      publisher.close();
      await proxy.close();
    }
  });

  it('refuses a relay that is not wss:// (ws:// only on loopback), quoting it', () => {
    expect(() => new RelayPublisher(['ws://relay.example.com'])).toThrow(
      'Relay `ws://relay.example.com` (relays) must be a wss:// URL (ws:// only on a loopback host)',
    );
    expect(() => new RelayPublisher([relay.url], { window: 0 })).toThrow(
      '`window` must be a positive integer, got `0`',
    );
  });
});
