import { AbstractSimplePool } from 'nostr-tools/abstract-pool';
import type { AbstractRelay, Subscription } from 'nostr-tools/abstract-relay';
import type { NostrEvent } from 'nostr-tools/core';
import type { Filter } from 'nostr-tools/filter';
import WebSocket from 'ws';
import type { Logger } from '../logger.js';

/** Waits before reconnecting: 1 s, doubling up to 30 s. */
const BACKOFF_MS = [1000, 2000, 4000, 8000, 16_000, 30_000] as const;

/**
 * Largest WebSocket message taken from a relay, in bytes: a kind-24133 request holds at most one NIP-44
 * payload (~87 KiB of base64 for its largest plaintext), so 512 KiB is ample; `ws` closes the connection on
 * a larger frame before buffering it.
 */
export const MAX_RELAY_MESSAGE_BYTES = 512 * 1024;

/** Event ids remembered to pass each event on once, whichever relay or subscription delivers it. */
const MAX_DELIVERED_IDS = 10_000;

/** How long a reply waits for a relay's `OK`. */
const PUBLISH_TIMEOUT_MS = 5000;

/** What a {@link RelayPool} needs. */
export interface RelayPoolOptions {
  relays: readonly string[];
  /** The filter to subscribe with, read again at each (re)subscription. */
  filter: () => Filter;
  /** Each event of the subscription, unchecked: anything a relay sends (its signature is not verified). */
  onEvent: (event: NostrEvent) => void;
  logger: Logger;
  /** Default: {@link MAX_RELAY_MESSAGE_BYTES}. */
  maxPayload?: number;
}

/**
 * The NIP-46 side's relay link: one nostr-tools pool (over `ws`, with a `maxPayload` cap), one subscription
 * per relay. The pool does not verify events — the remote signer does, within its budget — and does not
 * reconnect by itself: nostr-tools would resume a subscription from the newest `created_at` it saw, a date a
 * stranger chooses. Here a relay that drops or cannot be reached is retried with backoff (1 s, doubling up
 * to 30 s) and subscribed to afresh from a minute ago.
 */
export class RelayPool {
  readonly relays: readonly string[];
  readonly #options: RelayPoolOptions;
  readonly #pool: AbstractSimplePool;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #attempts = new Map<string, number>();
  readonly #down = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #delivered = new Set<string>();
  #closed = false;

  constructor(options: RelayPoolOptions) {
    this.#options = options;
    this.relays = [...options.relays];
    const maxPayload = options.maxPayload ?? MAX_RELAY_MESSAGE_BYTES;
    class CappedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url, { maxPayload });
      }
    }
    this.#pool = new AbstractSimplePool({
      // Checked by the remote signer, within its budget: a pool check would verify every stranger's event.
      verifyEvent: () => true,
      websocketImplementation: CappedWebSocket as unknown as typeof globalThis.WebSocket,
      enableReconnect: false,
      maxWaitForConnection: 10_000,
    });
  }

  /** Connect to every relay and subscribe (again and again, until {@link RelayPool.close}). */
  start(): void {
    for (const url of this.relays) void this.#connect(url);
  }

  /**
   * Subscribe again on every open relay with the current filter (new remote-signer keys to listen on);
   * resolves once each relay has the new subscription (its `EOSE`, or nostr-tools' EOSE timeout), so that a
   * URI is handed out only when its `connect` will be heard. The old subscription is closed only then: a
   * relay may send live events to a new subscription only after answering its query, and a request sent
   * in between would pass unseen.
   */
  async resubscribe(): Promise<void> {
    await Promise.all(
      [...this.#subscriptions].map(
        ([url, old]) =>
          new Promise<void>((resolve) => {
            old.onclose = undefined;
            this.#subscribe(url, old.relay, () => {
              old.close();
              resolve();
            });
          }),
      ),
    );
  }

  /** Send an event to every relay; resolves with how many took it (`OK true`). */
  async publish(event: NostrEvent): Promise<number> {
    const open = this.relays.filter((url) => this.#subscriptions.has(url));
    if (open.length === 0) return 0;
    const results = await Promise.allSettled(
      this.#pool.publish(open, event, { maxWait: PUBLISH_TIMEOUT_MS }),
    );
    return results.filter((result) => result.status === 'fulfilled').length;
  }

  /** Disconnect for good. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    for (const subscription of this.#subscriptions.values()) subscription.onclose = undefined;
    this.#subscriptions.clear();
    this.#pool.destroy();
  }

  async #connect(url: string): Promise<void> {
    if (this.#closed) return;
    let relay: AbstractRelay;
    try {
      relay = await this.#pool.ensureRelay(url, { connectionTimeout: 10_000 });
    } catch {
      this.#retry(url);
      return;
    }
    if (this.#closed) return;
    relay.onnotice = () => {};
    this.#attempts.set(url, 0);
    if (this.#down.delete(url)) this.#options.logger.info(`relay \`${url}\` reachable again`);
    this.#subscribe(url, relay);
  }

  #subscribe(url: string, relay: AbstractRelay, onEose?: () => void): void {
    // Requests older than a minute are not wanted: kind 24133 is ephemeral, and a client waits far less.
    const filter = { ...this.#options.filter(), since: Math.floor(Date.now() / 1000) - 60 };
    const subscription = relay.subscribe([filter], {
      onevent: this.#options.onEvent,
      // Read from the raw message before it is parsed: a copy from a second relay costs nothing more.
      alreadyHaveEvent: (id) => this.#alreadyDelivered(id),
      ...(onEose && { oneose: onEose }),
      onclose: (reason) => {
        if (this.#subscriptions.get(url) !== subscription) return;
        this.#subscriptions.delete(url);
        if (relay.connected) {
          // The relay ended the subscription (`CLOSED`) but is still there: say why, and try again later.
          this.#options.logger.warn(`relay \`${url}\` closed the subscription: ${reason.slice(0, 200)}`);
          relay.close();
        }
        this.#retry(url);
      },
    });
    this.#subscriptions.set(url, subscription);
  }

  #alreadyDelivered(id: string): boolean {
    if (this.#delivered.has(id)) return true;
    if (this.#delivered.size >= MAX_DELIVERED_IDS) {
      this.#delivered.delete(this.#delivered.values().next().value as string);
    }
    this.#delivered.add(id);
    return false;
  }

  #retry(url: string): void {
    if (this.#closed) return;
    if (!this.#down.has(url)) {
      this.#down.add(url);
      this.#options.logger.warn(`relay \`${url}\` unreachable; retrying with backoff`);
    }
    const attempt = this.#attempts.get(url) ?? 0;
    this.#attempts.set(url, attempt + 1);
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        void this.#connect(url);
      },
      BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)],
    );
    timer.unref();
    this.#timers.add(timer);
  }
}
