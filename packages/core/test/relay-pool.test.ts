// Relay connections kept between queries (`RelayPool`, the extension's worker): one connection per relay for
// every query, a closed one replaced, one that never opened not kept. A stand-in WebSocket that answers
// every REQ with EOSE (no socket in the unit project; the extension's Chromium tests run it on a relay).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryRelay, RelayPool } from '../src/nostr/relay-query-portable.js';
import { FakeWebSocket } from './support/fake-websocket.js';

const RELAY = 'wss://relay.example';

/** Every socket made, and whether each opens. */
const made: FakeSocket[] = [];
let opens = true;

class FakeSocket extends FakeWebSocket {
  sent: unknown[] = [];
  constructor(url: string) {
    super(url);
    made.push(this);
    if (opens)
      setTimeout(() => {
        this.readyState = 1;
        this.onopen?.();
      }, 0);
  }
  override send(data: string) {
    const message = JSON.parse(data) as unknown[];
    this.sent.push(message);
    if (message[0] === 'REQ')
      setTimeout(() => this.onmessage?.({ data: JSON.stringify(['EOSE', message[1]]) }), 0);
  }
  /** The relay ends the connection. */
  hangUp() {
    this.readyState = 3;
    this.onclose?.({ code: 1001 });
  }
}
const websocket = () => FakeSocket as unknown as typeof WebSocket;

afterEach(() => {
  made.length = 0;
  opens = true;
  vi.useRealTimers();
});

describe('a relay pool', () => {
  it('asks every query on one connection per relay; without one, each query opens its own', async () => {
    const pool = new RelayPool();
    for (const kind of [0, 1, 35128]) {
      const answer = await queryRelay(RELAY, { kinds: [kind] }, { websocket, pool });
      expect(answer.error).toBeUndefined();
    }
    expect(made).toHaveLength(1);
    // Each query's subscription was opened and closed on it.
    expect(made[0]?.sent.filter((message) => (message as string[])[0] === 'REQ')).toHaveLength(3);
    pool.close();
    await queryRelay(RELAY, { kinds: [0] }, { websocket });
    await queryRelay(RELAY, { kinds: [1] }, { websocket });
    expect(made).toHaveLength(3);
  });

  it('opens a new connection once the relay closed the last one', async () => {
    const pool = new RelayPool();
    await queryRelay(RELAY, { kinds: [0] }, { websocket, pool });
    made[0]?.hangUp();
    const answer = await queryRelay(RELAY, { kinds: [1] }, { websocket, pool });
    expect(answer.error).toBeUndefined();
    expect(made).toHaveLength(2);
    pool.close();
  });

  it('does not keep a connection that did not open within the connect budget', async () => {
    vi.useFakeTimers();
    opens = false;
    const pool = new RelayPool();
    const first = queryRelay(
      RELAY,
      { kinds: [0] },
      { websocket, pool, timeoutMs: 6_000, connectTimeoutMs: 2_000 },
    );
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await first).error).toBe('cannot connect within 2 s');
    opens = true;
    const second = queryRelay(
      RELAY,
      { kinds: [1] },
      { websocket, pool, timeoutMs: 6_000, connectTimeoutMs: 2_000 },
    );
    await vi.advanceTimersByTimeAsync(10);
    expect((await second).error).toBeUndefined();
    expect(made).toHaveLength(2);
    pool.close();
  });
});
