import { isEventShape } from '@siegel/core/crypto';
import {
  backoffDelay,
  createNodeRelay,
  describeTooLarge,
  MAX_NIP46_MESSAGE_BYTES,
  type RelayConnection,
} from '@siegel/core/relay';
import type { AbstractRelay, Subscription } from 'nostr-tools/abstract-relay';
import type { NostrEvent } from 'nostr-tools/core';
import type { Filter } from 'nostr-tools/filter';
import type { Logger } from '../logger.js';

/** Waits before reconnecting: 1 s, doubling up to 30 s. */
const BACKOFF = { first: 1000, max: 30_000 } as const;

/** How long a relay has to accept the connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Event ids remembered to pass each event on once, whichever relay or subscription delivers it. */
const MAX_DELIVERED_IDS = 10_000;

/** How long a reply waits for a relay's `OK`. */
const PUBLISH_TIMEOUT_MS = 5000;

/** What a {@link RelayPool} needs. */
export interface RelayPoolOptions {
  relays: readonly string[];
  /** The filter to subscribe with, read again at each (re)subscription. */
  filter: () => Filter;
  /**
   * Each event of the subscription, unchecked: anything a relay sends (its signature is not verified, and
   * a value not shaped like an event comes too, for the remote signer to count as malformed).
   */
  onEvent: (event: unknown) => void;
  logger: Logger;
  /**
   * Largest message taken from a relay, in bytes (default 512 KiB, core's `MAX_NIP46_MESSAGE_BYTES`: a
   * kind-24133 request holds one NIP-44 payload); `ws` closes the connection on a larger frame before
   * buffering it.
   */
  maxPayload?: number;
}

/**
 * The NIP-46 side's relay link: one core relay per relay URL (`createNodeRelay` of `@siegel/core/relay`:
 * nostr-tools' relay on core's capped `ws` socket), one subscription each. Events are not verified here — the remote
 * signer does, within its budget — and a relay does not reconnect by itself: nostr-tools would resume a
 * subscription from the newest `created_at` it saw, a date a stranger chooses. Here a relay that drops or
 * cannot be reached is retried with backoff (1 s, doubling up to 30 s) and subscribed to afresh from a
 * minute ago.
 */
export class RelayPool {
  readonly relays: readonly string[];
  readonly #options: RelayPoolOptions;
  readonly #maxPayload: number;
  /** The connection of each relay while it is open or opening. */
  readonly #connections = new Map<string, RelayConnection>();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #attempts = new Map<string, number>();
  readonly #down = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #delivered = new Set<string>();
  #closed = false;

  constructor(options: RelayPoolOptions) {
    this.#options = options;
    this.relays = [...options.relays];
    this.#maxPayload = options.maxPayload ?? MAX_NIP46_MESSAGE_BYTES;
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
    const results = await Promise.allSettled(
      open.map((url) => this.#connections.get(url)?.publish(event) ?? Promise.reject(new Error('closed'))),
    );
    return results.filter((result) => result.status === 'fulfilled').length;
  }

  /** Disconnect for good. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    for (const subscription of this.#subscriptions.values()) subscription.onclose = undefined;
    this.#subscriptions.clear();
    for (const relay of this.#connections.values()) relay.close();
    this.#connections.clear();
  }

  async #connect(url: string): Promise<void> {
    if (this.#closed) return;
    const maxPayload = this.#maxPayload;
    const relay = createNodeRelay(url, {
      maxPayload,
      onTooLarge: () => this.#options.logger.warn(`relay \`${url}\` ${describeTooLarge(maxPayload)}`),
    });
    relay.publishTimeout = PUBLISH_TIMEOUT_MS;
    relay.onclose = () => {
      if (this.#connections.get(url) === relay) this.#connections.delete(url);
    };
    this.#connections.set(url, relay);
    try {
      await relay.connect({ timeout: CONNECT_TIMEOUT_MS });
    } catch {
      if (this.#connections.get(url) === relay) this.#connections.delete(url);
      this.#retry(url);
      return;
    }
    if (this.#closed) {
      relay.close();
      return;
    }
    this.#attempts.set(url, 0);
    if (this.#down.delete(url)) this.#options.logger.info(`relay \`${url}\` reachable again`);
    this.#subscribe(url, relay);
  }

  #subscribe(url: string, relay: AbstractRelay, onEose?: () => void): void {
    // Requests older than a minute are not wanted: kind 24133 is ephemeral, and a client waits far less.
    const filter = { ...this.#options.filter(), since: Math.floor(Date.now() / 1000) - 60 };
    const subscription = relay.subscribe([filter], {
      onevent: this.#options.onEvent,
      // Core's relay holds back what is not shaped like an event (nostr-tools, what the filter does not
      // match): the first goes on, for the remote signer to count as malformed.
      oninvalidevent: (value) => {
        if (!isEventShape(value)) this.#options.onEvent(value);
      },
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
      backoffDelay(attempt, BACKOFF),
    );
    timer.unref();
    this.#timers.add(timer);
  }
}
