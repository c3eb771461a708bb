import { randomBytes } from 'node:crypto';
import { createConnection, createServer } from 'node:net';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { PUBLISH_DEFAULTS, RelayPublisher } from '../../packages/core/dist/index.js';
import { startRelay } from '../../test/support/relay-process.ts';

const EVENTS = Math.max(1, Number(process.env.BENCH_EVENTS ?? 1000));
const DELAY_MS = Math.max(1, Number(process.env.BENCH_DELAY_MS ?? 20));
const DELAYED_EVENTS = Math.max(1, Number(process.env.BENCH_DELAYED_EVENTS ?? 300));

/** Page events like the ones `signSite` signs (kind 1063, url/m/x/ox/summary/alt tags). */
function makeEvents(count, secretKey, label) {
  return Array.from({ length: count }, (_, i) => {
    const hash = randomBytes(32).toString('hex');
    const event = finalizeEvent(
      {
        kind: 1063,
        created_at: 1_700_000_000 + i,
        tags: [
          ['url', `https://example.com/${label}/${i}/`],
          ['m', 'text/html'],
          ['x', hash],
          ['ox', hash],
          ['summary', 'A page of the benchmark site, with a description of typical length.'],
          ['alt', `Page ${i}`],
        ],
        content: `Page ${i}`,
      },
      secretKey,
    );
    return JSON.parse(JSON.stringify(event));
  });
}

/** A TCP proxy to `url` that delays every chunk, each direction, by `delay` ms (order kept). */
function startDelayProxy(url, delay) {
  const port = Number(new URL(url).port);
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    const pass = (from, to) =>
      from.on('data', (chunk) => setTimeout(() => to.destroyed || to.write(chunk), delay));
    pass(client, upstream);
    pass(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('close', end).on('error', end);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `ws://127.0.0.1:${server.address().port}`, close: () => server.close() }),
    ),
  );
}

async function publishAll(url, events, window) {
  const publisher = new RelayPublisher([url], { window });
  try {
    const start = performance.now();
    const results = await publisher.publish(events);
    const ms = performance.now() - start;
    const accepted = results.filter((result) => result.accepted.length === 1).length;
    if (accepted !== events.length) throw new Error(`only ${accepted} of ${events.length} accepted`);
    return ms;
  } finally {
    publisher.close();
  }
}

const rate = (ms, events = EVENTS) => Math.round((events / ms) * 1000);

const relay = await startRelay();
try {
  const secretKey = generateSecretKey();
  await publishAll(relay.url, makeEvents(200, secretKey, 'warm-up'), PUBLISH_DEFAULTS.window);
  const oneByOne = await publishAll(relay.url, makeEvents(EVENTS, secretKey, 'serial'), 1);
  const pipelined = await publishAll(
    relay.url,
    makeEvents(EVENTS, secretKey, 'pipelined'),
    PUBLISH_DEFAULTS.window,
  );
  console.log(`${EVENTS} events to one loopback relay (${relay.url}), one connection each way:`);
  console.log(`  one at a time (window 1):         ${rate(oneByOne)} events/s (${Math.round(oneByOne)} ms)`);
  console.log(
    `  pipelined (window ${PUBLISH_DEFAULTS.window}):           ${rate(pipelined)} events/s (${Math.round(pipelined)} ms)`,
  );
  console.log(`  pipelined / one at a time:        ${(oneByOne / pipelined).toFixed(1)}×`);
  const proxy = await startDelayProxy(relay.url, DELAY_MS);
  try {
    const slow = await publishAll(proxy.url, makeEvents(DELAYED_EVENTS, secretKey, 'slow-serial'), 1);
    const fast = await publishAll(
      proxy.url,
      makeEvents(DELAYED_EVENTS, secretKey, 'slow-pipelined'),
      PUBLISH_DEFAULTS.window,
    );
    console.log(`${DELAYED_EVENTS} events through a proxy adding ${DELAY_MS} ms each way:`);
    console.log(
      `  one at a time (window 1):         ${rate(slow, DELAYED_EVENTS)} events/s (${Math.round(slow)} ms)`,
    );
    console.log(
      `  pipelined (window ${PUBLISH_DEFAULTS.window}):           ${rate(fast, DELAYED_EVENTS)} events/s (${Math.round(fast)} ms)`,
    );
    console.log(`  pipelined / one at a time:        ${(slow / fast).toFixed(1)}×`);
  } finally {
    proxy.close();
  }
} finally {
  await relay.stop();
}

// Issue 24: what one silent relay costs a whole signing run (1 000 pages), against no relay.
await import('./silent-relay.mjs');
