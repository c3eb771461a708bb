import type { NostrEvent } from 'nostr-tools/core';
import type { Logger } from '../logger.js';

/** Waits before reconnecting: 1 s, doubling up to 30 s. */
const BACKOFF_MS = [1000, 2000, 4000, 8000, 16_000, 30_000] as const;

/** The one subscription id a link uses (sent again with a new filter, it replaces the old one). */
const SUBSCRIPTION = 'siegel-nip46';

/** Largest relay message read, in characters: a 24133 request holds at most one NIP-44 payload. */
const MAX_MESSAGE_CHARS = 512 * 1024;

/** What a {@link RelayLink} needs. */
export interface RelayLinkOptions {
  /** The filter to subscribe with, read again at each (re)subscription. */
  filter: () => Record<string, unknown>;
  /** Called with each event of the subscription (not yet checked: anything a relay sends). */
  onEvent: (event: unknown) => void;
  logger: Logger;
}

/**
 * One WebSocket to one relay (Node's global `WebSocket`), holding one subscription: it reconnects with
 * backoff when the relay drops or cannot be reached, and subscribes again each time.
 */
export class RelayLink {
  readonly url: string;
  readonly #options: RelayLinkOptions;
  #socket: WebSocket | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #warned = false;

  constructor(url: string, options: RelayLinkOptions) {
    this.url = url;
    this.#options = options;
  }

  /** Whether the link is open now. */
  get open(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Connect (again and again, until {@link RelayLink.close}). */
  start(): void {
    if (this.#closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.#options.logger.warn(`relay \`${this.url}\`: ${String(error)}`);
      this.#retry();
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
      this.#attempt = 0;
      if (this.#warned) this.#options.logger.info(`relay \`${this.url}\` reachable again`);
      this.#warned = false;
      this.subscribe();
    };
    socket.onmessage = (message) => this.#receive(message.data);
    socket.onerror = () => {};
    socket.onclose = () => {
      if (this.#socket === socket) this.#socket = undefined;
      if (this.#closed) return;
      if (!this.#warned)
        this.#options.logger.warn(`relay \`${this.url}\` unreachable; retrying with backoff`);
      this.#warned = true;
      this.#retry();
    };
  }

  /** (Re)send the subscription with the current filter; a no-op while the link is down. */
  subscribe(): void {
    // Requests older than a minute are not wanted: kind 24133 is ephemeral, and a client waits far less.
    const filter = { ...this.#options.filter(), since: Math.floor(Date.now() / 1000) - 60 };
    this.#send(['REQ', SUBSCRIPTION, filter]);
  }

  /** Send an event; `false` when the link is down (the event is not queued). */
  publish(event: NostrEvent): boolean {
    return this.#send(['EVENT', event]);
  }

  /** Stop for good. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.close();
    this.#socket = undefined;
  }

  #send(message: unknown[]): boolean {
    const socket = this.#socket;
    if (socket?.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  #retry(): void {
    if (this.#closed) return;
    const wait = BACKOFF_MS[Math.min(this.#attempt, BACKOFF_MS.length - 1)];
    this.#attempt++;
    this.#timer = setTimeout(() => this.start(), wait);
    this.#timer.unref();
  }

  #receive(data: unknown): void {
    if (typeof data !== 'string' || data.length > MAX_MESSAGE_CHARS) return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!Array.isArray(message)) return;
    if (message[0] === 'EVENT' && message[1] === SUBSCRIPTION) this.#options.onEvent(message[2]);
    else if (message[0] === 'CLOSED' && message[1] === SUBSCRIPTION) {
      this.#options.logger.warn(
        `relay \`${this.url}\` closed the subscription: ${String(message[2]).slice(0, 200)}`,
      );
    } else if (message[0] === 'OK' && message[2] === false) {
      this.#options.logger.warn(`relay \`${this.url}\` refused a reply: ${String(message[3]).slice(0, 200)}`);
    }
  }
}
