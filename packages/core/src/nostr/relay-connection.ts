// One connection to one relay: nostr-tools' AbstractRelay (its OK promises with their timeout, its
// subscriptions with `oneose`, its ping), on whatever WebSocket the caller gives — `ws` with a size cap in
// Node (relay-socket.ts), the browser's own in the verify script. No Node module here: esbuild bundles this
// file into siegel-verify.js.
import { AbstractRelay, type AbstractRelayConstructorOptions } from 'nostr-tools/abstract-relay';
import { isEventShape } from './event-shape.js';

/** Messages that name a subscription in their second element. */
const SUBSCRIPTION_MESSAGES = new Set(['EVENT', 'EOSE', 'CLOSED']);

/** Options of {@link RelayConnection}: nostr-tools' relay options but the WebSocket, all optional. */
export type RelayConnectionOptions = Partial<
  Omit<AbstractRelayConstructorOptions, 'websocketImplementation'>
>;

/**
 * A nostr-tools relay that says nothing of its own: relays are strangers, and nostr-tools writes to the
 * console whatever it cannot handle (a NOTICE, a message that is not JSON, an `EVENT` that is not an
 * object) — with the relay's own text in it, which in a terminal could carry escape sequences. Here a
 * NOTICE is dropped, a message that is not a NIP-01 array is dropped before nostr-tools reads it, and an
 * `EVENT` that is not shaped like a signed event goes to its subscription's `oninvalidevent`. Events are
 * not verified unless `verifyEvent` is given: a query's caller checks each one it takes (`accept`).
 */
export class RelayConnection extends AbstractRelay {
  constructor(url: string, websocket: typeof WebSocket, options: RelayConnectionOptions = {}) {
    super(url, { verifyEvent: () => true, ...options, websocketImplementation: websocket });
    this.onnotice = () => {};
  }

  override _onmessage(message: MessageEvent): void {
    if (typeof message.data !== 'string') return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (!Array.isArray(data) || typeof data[0] !== 'string') return;
    if (SUBSCRIPTION_MESSAGES.has(data[0])) {
      const subscription = typeof data[1] === 'string' ? this.openSubs.get(data[1]) : undefined;
      if (!subscription) return;
      if (data[0] === 'EVENT' && !isEventShape(data[2])) {
        subscription.oninvalidevent?.(data[2]);
        return;
      }
    }
    super._onmessage(message);
  }
}
