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

/** nostr-tools' publishes waiting for `OK`, whose `clear()` also stops their answer timers. */
class PendingPublishes extends Map<string, { timeout?: ReturnType<typeof setTimeout> }> {
  override clear(): void {
    for (const pending of this.values()) clearTimeout(pending.timeout);
    super.clear();
  }
}

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
    // nostr-tools rejects the publishes still waiting when the connection closes (ours or the relay's) but
    // leaves each one's answer timer running, and each held the process open for up to `publishTimeout`
    // after the run was done (a silent relay: 15 s past the publishing budget). It clears that map exactly
    // then, so the map clears the timers.
    (this as unknown as { openEventPublishes: PendingPublishes }).openEventPublishes = new PendingPublishes();
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
