// `@siegel/core/relay`: core's one relay client for Node, for core's own publisher and Siegel's other
// packages (the bunker's NIP-46 relay pool): nostr-tools' relay made quiet (relay-connection.ts) on a `ws`
// socket capped per message (relay-socket.ts), and the backoff a reconnect waits by. Nothing else of
// Siegel opens a WebSocket to a relay (test/repo/one-relay-client.test.ts).
import { RelayConnection, type RelayConnectionOptions } from './relay-connection.js';
import { createRelaySocket, type RelaySocketOptions } from './relay-socket.js';

export { type BackoffOptions, backoffDelay } from '../net/backoff.js';
export { RelayConnection, type RelayConnectionOptions } from './relay-connection.js';
export { describeTooLarge, MAX_NIP46_MESSAGE_BYTES, MAX_RELAY_MESSAGE_BYTES } from './relay-socket.js';
export { parseRelays, RELAY_LIMITS } from './relays.js';

/** Options of {@link createNodeRelay}: the socket's cap, and nostr-tools' relay options. */
export interface NodeRelayOptions extends RelayConnectionOptions {
  /** Largest message taken, in bytes (default `MAX_RELAY_MESSAGE_BYTES`, 2 MiB). */
  maxPayload?: number;
  /** Called when the relay sent a larger message: the connection is being closed with 1009. */
  onTooLarge?: RelaySocketOptions['onTooLarge'];
}

/**
 * One relay in Node: core's quiet {@link RelayConnection} on a `ws` socket capped at `maxPayload` bytes
 * per message, not connected yet. Events are not verified unless `verifyEvent` is given.
 *
 * @example
 * ```ts
 * const relay = createNodeRelay('wss://relay.example', { maxPayload: MAX_NIP46_MESSAGE_BYTES });
 * await relay.connect({ timeout: 10_000 });
 * relay.subscribe([{ kinds: [24133], '#p': [pubkey] }], { onevent: (event) => handle(event) });
 * ```
 */
export function createNodeRelay(url: string, options: NodeRelayOptions = {}): RelayConnection {
  const { maxPayload, onTooLarge, ...relayOptions } = options;
  const socket = createRelaySocket({
    ...(maxPayload !== undefined && { maxPayload }),
    ...(onTooLarge !== undefined && { onTooLarge }),
  });
  return new RelayConnection(url, socket, relayOptions);
}
