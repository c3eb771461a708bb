// Bench (not a test): events/s published by @siegel/core's RelayPublisher to a real relay process on
// loopback (test/support/relay: @nostr-relay/core + ws), pipelined (a window of events in flight on one
// connection, the default) against one at a time (each event waits for its OK before the next is sent:
// window 1), in the same run, each with its own fresh events. On loopback the relay's own work (it checks
// every signature) bounds both; pipelining pays where the network has latency, so the bench measures a
// second time through a proxy that delays each direction by BENCH_DELAY_MS (default 20 ms: a relay across
// a continent), with fewer events (BENCH_DELAYED_EVENTS, default 300; one at a time that is 300 round trips).
//
//   npm run bench:publish                # 1 000 events each way on loopback
//   BENCH_EVENTS=5000 npm run bench:publish
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { PUBLISH_DEFAULTS, RelayPublisher } from '../../packages/core/dist/index.js';

const EVENTS = Math.max(1, Number(process.env.BENCH_EVENTS ?? 1000));
const DELAY_MS = Math.max(1, Number(process.env.BENCH_DELAY_MS ?? 20));
const DELAYED_EVENTS = Math.max(1, Number(process.env.BENCH_DELAYED_EVENTS ?? 300));
const RELAY = fileURLToPath(new URL('../../test/support/relay/relay-server.mjs', import.meta.url));

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

function startRelay() {
  const child = spawn(process.execPath, [RELAY, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /^SIEGEL_RELAY_READY (\{.*\})$/m.exec(out);
      if (match) resolve({ url: JSON.parse(match[1]).url, child });
    });
    child.once('exit', () => reject(new Error(`the relay exited:\n${out}`)));
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
  relay.child.kill('SIGTERM');
}

// Issue 24: what one silent relay costs a whole signing run (1 000 pages), against no relay.
await import('./silent-relay.mjs');
