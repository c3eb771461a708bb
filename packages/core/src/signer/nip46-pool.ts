// The NIP-46 client's relay link: one nostr-tools pool, as BunkerSigner takes it, on `ws` capped at 512 KiB
// per message, whose relays are core's quiet RelayConnection. BunkerSigner reads each reply in an async
// handler that throws on anything but NIP-44 ciphertext (a NIP-04 reply, say): unhandled, that rejection
// ended `siegel sign` with an uncaught exception. Here every subscription's handler is guarded and such a
// reply goes to `onBadReply`.
import { AbstractSimplePool, type SubscribeManyParams } from 'nostr-tools/abstract-pool';
import type { AbstractRelay } from 'nostr-tools/abstract-relay';
import type { NostrEvent } from 'nostr-tools/core';
import type { Filter } from 'nostr-tools/filter';
import { normalizeURL } from 'nostr-tools/utils';
import { RelayConnection } from '../nostr/relay-connection.js';
import { createRelaySocket, MAX_NIP46_MESSAGE_BYTES } from '../nostr/relay-socket.js';

/** What {@link Nip46Pool} needs besides nostr-tools' pool options. */
export interface Nip46PoolOptions {
  /** Checks each event a relay sends (id and signature) before BunkerSigner sees it. */
  verifyEvent: (event: NostrEvent) => boolean;
  /** A reply from the signer that BunkerSigner could not read (not NIP-44, not JSON). */
  onBadReply: (event: NostrEvent, error: unknown) => void;
  /** A relay sent a message over {@link MAX_NIP46_MESSAGE_BYTES}: its connection is being closed (1009). */
  onTooLarge: (relay: string) => void;
  /** Default {@link MAX_NIP46_MESSAGE_BYTES}. */
  maxPayload?: number;
  /**
   * How long a relay has to confirm a request's publish, in milliseconds: the request's own timeout
   * (nostr-tools' 4.4 s would fail a request the signer still answers in time through a slow relay).
   */
  publishTimeoutMs?: number;
}

/** nostr-tools' pool for BunkerSigner: capped sockets, quiet relays, guarded reply handlers. */
export class Nip46Pool extends AbstractSimplePool {
  readonly #socket: typeof WebSocket;
  readonly #onBadReply: Nip46PoolOptions['onBadReply'];
  readonly #publishTimeoutMs: number | undefined;

  constructor(options: Nip46PoolOptions) {
    const socket = createRelaySocket({
      maxPayload: options.maxPayload ?? MAX_NIP46_MESSAGE_BYTES,
      onTooLarge: options.onTooLarge,
    });
    super({ verifyEvent: options.verifyEvent, websocketImplementation: socket, maxWaitForConnection: 5000 });
    this.#socket = socket;
    this.#onBadReply = options.onBadReply;
    this.#publishTimeoutMs = options.publishTimeoutMs;
  }

  override ensureRelay(url: string, params?: Parameters<AbstractSimplePool['ensureRelay']>[1]) {
    // nostr-tools makes a relay for a URL it has none for; one put here first is used instead (and
    // forgotten the same way when it closes).
    const key = normalizeURL(url);
    if (!this.relays.has(key)) {
      // No idle timeout: the client's subscription keeps each relay busy while it runs, and nostr-tools
      // would arm that timer again when the subscription of a relay that already dropped is closed,
      // holding the process open for 20 s after a failed run.
      const relay: AbstractRelay = new RelayConnection(key, this.#socket, { verifyEvent: this.verifyEvent });
      if (this.#publishTimeoutMs !== undefined) relay.publishTimeout = this.#publishTimeoutMs;
      relay.onclose = () => {
        if (this.relays.get(key) === relay) this.relays.delete(key);
      };
      this.relays.set(key, relay);
    }
    return super.ensureRelay(url, params);
  }

  override subscribe(relays: string[], filter: Filter, params: SubscribeManyParams) {
    const onevent = params.onevent;
    if (!onevent) return super.subscribe(relays, filter, params);
    const guarded = (event: NostrEvent) => {
      try {
        // BunkerSigner's handler is async: its failures come as a rejected promise.
        const result: unknown = onevent(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.#onBadReply(event, error));
      } catch (error) {
        this.#onBadReply(event, error);
      }
    };
    return super.subscribe(relays, filter, { ...params, onevent: guarded });
  }
}
