import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import { parseRelays } from './relays.js';

/** Defaults of {@link RelayPublisher}. */
export const PUBLISH_DEFAULTS = {
  /** Time to open a relay's WebSocket, in milliseconds. */
  connectTimeoutMs: 10_000,
  /** Time a relay has to answer one `EVENT` with `OK`, from sending it, in milliseconds. */
  answerTimeoutMs: 15_000,
  /** `EVENT` messages in flight (sent, not yet answered) per relay connection. */
  window: 100,
} as const;

/** Options of {@link RelayPublisher}; every field is optional. */
export interface RelayPublisherOptions {
  /** Time to open a relay's WebSocket (default 10 s). */
  connectTimeoutMs?: number;
  /** Time a relay has to answer one event with `OK` (default 15 s). */
  answerTimeoutMs?: number;
  /** Events in flight per relay connection (default 100): the pipelining window. */
  window?: number;
}

/** What one relay said to one event: `ok` only for `OK` true (a `duplicate:` answer counts too). */
export type RelayAnswer = { ok: true; message: string } | { ok: false; reason: string };

/** What became of one event: the relays that took it (`OK` true) and why the others did not. */
export interface EventPublishResult {
  event: NostrEvent;
  /** Relays that answered `OK` true, in the publisher's order. */
  accepted: string[];
  /** Relays that did not: refused (`OK` false, with the relay's message), timed out, or not reachable. */
  failed: Array<{ relay: string; reason: string }>;
}

interface Waiter {
  promise: Promise<RelayAnswer>;
  resolve(answer: RelayAnswer): void;
  timer?: ReturnType<typeof setTimeout>;
}

/** New connections after an open one was closed by the relay, per publisher. */
const MAX_RECONNECTS = 3;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * One WebSocket to one relay: events are sent as they come, up to `window` unanswered at once, and each
 * `OK` is matched to its event by id. A connection that fails (or closes) fails every event it holds and
 * every later one with the same reason: a relay that is down costs one connect attempt per publisher. When
 * the relay closes an open connection, the events in flight fail and the queued ones go out on a new one.
 */
class RelayConnection {
  readonly url: string;
  readonly #options: Required<RelayPublisherOptions>;
  #socket: WebSocket | undefined;
  #open = false;
  #dead: string | undefined;
  #reconnects = 0;
  /** Sent, waiting for `OK`, by event id. */
  readonly #inFlight = new Map<string, Waiter>();
  /** Not sent yet (the window is full or the socket is opening), with their waiters. */
  readonly #queue: Array<{ event: NostrEvent; waiter: Waiter }> = [];
  /** Every event this connection was given, by id: the same event twice gets the one answer. */
  readonly #known = new Map<string, Promise<RelayAnswer>>();

  constructor(url: string, options: Required<RelayPublisherOptions>) {
    this.url = url;
    this.#options = options;
  }

  send(event: NostrEvent): Promise<RelayAnswer> {
    const known = this.#known.get(event.id);
    if (known) return known;
    if (this.#dead) return Promise.resolve({ ok: false, reason: this.#dead });
    let resolve!: (answer: RelayAnswer) => void;
    const promise = new Promise<RelayAnswer>((done) => {
      resolve = done;
    });
    const waiter: Waiter = { promise, resolve };
    this.#known.set(event.id, promise);
    this.#queue.push({ event, waiter });
    this.#connect();
    this.#pump();
    return promise;
  }

  close(): void {
    this.#fail('the publisher was closed');
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close();
  }

  #connect(): void {
    if (this.#socket || this.#dead) return;
    const socket = new WebSocket(this.url);
    this.#socket = socket;
    const timer = setTimeout(() => {
      this.#fail(`cannot connect: no connection within ${seconds(this.#options.connectTimeoutMs)}`);
      socket.close();
    }, this.#options.connectTimeoutMs);
    socket.onopen = () => {
      clearTimeout(timer);
      this.#open = true;
      this.#pump();
    };
    socket.onmessage = (message) => this.#receive(message.data);
    const lost = () => {
      clearTimeout(timer);
      if (this.#socket !== socket) return;
      if (!this.#open) return this.#fail('cannot connect');
      // It was open: what is in flight is lost; what is queued goes out on a new connection (a few times).
      this.#socket = undefined;
      this.#open = false;
      this.#failInFlight('the relay closed the connection');
      if (++this.#reconnects > MAX_RECONNECTS) return this.#fail('the relay closed the connection');
      if (this.#queue.length > 0) this.#connect();
    };
    socket.onerror = lost;
    socket.onclose = lost;
  }

  #pump(): void {
    if (!this.#open || !this.#socket) return;
    while (this.#queue.length > 0 && this.#inFlight.size < this.#options.window) {
      const { event, waiter } = this.#queue.shift() as { event: NostrEvent; waiter: Waiter };
      waiter.timer = setTimeout(() => {
        this.#inFlight.delete(event.id);
        waiter.resolve({
          ok: false,
          reason: `timed out: no OK within ${seconds(this.#options.answerTimeoutMs)}`,
        });
        this.#pump();
      }, this.#options.answerTimeoutMs);
      this.#inFlight.set(event.id, waiter);
      this.#socket.send(JSON.stringify(['EVENT', event]));
    }
  }

  #receive(data: unknown): void {
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      return; // Not NIP-01: ignored, like NOTICE and anything else that is not an OK.
    }
    if (!Array.isArray(message) || message[0] !== 'OK' || typeof message[1] !== 'string') return;
    const waiter = this.#inFlight.get(message[1]);
    if (!waiter) return;
    this.#inFlight.delete(message[1]);
    clearTimeout(waiter.timer);
    const text = typeof message[3] === 'string' ? message[3] : '';
    waiter.resolve(
      message[2] === true
        ? { ok: true, message: text }
        : {
            ok: false,
            reason: `refused: ${toTerminalSafe(text, { singleLine: true }).slice(0, 300) || 'no reason given'}`,
          },
    );
    this.#pump();
  }

  /** Fail everything held now and everything sent later with `reason`. */
  #fail(reason: string): void {
    this.#dead ??= reason;
    this.#failInFlight(this.#dead);
    for (const { waiter } of this.#queue.splice(0)) waiter.resolve({ ok: false, reason: this.#dead });
  }

  #failInFlight(reason: string): void {
    for (const waiter of this.#inFlight.values()) {
      clearTimeout(waiter.timer);
      waiter.resolve({ ok: false, reason });
    }
    this.#inFlight.clear();
  }
}

/**
 * Publishes Nostr events to relays as NIP-01 `EVENT` messages: one WebSocket per relay, opened on the first
 * event, with many events in flight on it at once (a bounded window), each relay's `OK` matched to its event
 * by id. A relay counts for an event only when it answers `OK` true (`duplicate:` included). Failures are
 * results, never exceptions: refused (`refused: blocked: …`, the relay's message), timed out (connect or
 * answer), cannot connect. A relay that cannot be reached is tried once per publisher; make a new one to
 * try again.
 *
 * @example
 * ```ts
 * const publisher = new RelayPublisher(['wss://relay.example.com', 'wss://nos.lol']);
 * try {
 *   for (const { event, accepted, failed } of await publisher.publish(events))
 *     console.log(event.id, accepted, failed);
 * } finally {
 *   publisher.close();
 * }
 * ```
 * @throws {SiegelError} `invalid_options` (constructor) for a relay that is not `wss://` (`ws://` on
 *   loopback) or a bad timeout or window.
 */
export class RelayPublisher {
  /** The relays, validated by `parseRelays`, in the given order. */
  readonly relays: readonly string[];
  readonly #connections: RelayConnection[];

  constructor(relays: readonly string[], options: RelayPublisherOptions = {}) {
    this.relays = parseRelays(relays);
    const resolved = {
      connectTimeoutMs: positive(
        options.connectTimeoutMs,
        PUBLISH_DEFAULTS.connectTimeoutMs,
        'connectTimeoutMs',
      ),
      answerTimeoutMs: positive(options.answerTimeoutMs, PUBLISH_DEFAULTS.answerTimeoutMs, 'answerTimeoutMs'),
      window: positive(options.window, PUBLISH_DEFAULTS.window, 'window'),
    };
    this.#connections = this.relays.map((url) => new RelayConnection(url, resolved));
  }

  /**
   * Send `events` to every relay (or to `relays`, a subset of {@link relays}) and wait for their answers.
   * Calls may overlap: each goes out at once on the open connections. The results are in the order of
   * `events`. Never rejects.
   */
  async publish(events: readonly NostrEvent[], relays?: readonly string[]): Promise<EventPublishResult[]> {
    const connections = relays
      ? this.#connections.filter((connection) => relays.includes(connection.url))
      : this.#connections;
    return Promise.all(
      events.map(async (event) => {
        const answers = await Promise.all(connections.map((connection) => connection.send(event)));
        const result: EventPublishResult = { event, accepted: [], failed: [] };
        for (const [index, answer] of answers.entries()) {
          const relay = (connections[index] as RelayConnection).url;
          if (answer.ok) result.accepted.push(relay);
          else result.failed.push({ relay, reason: answer.reason });
        }
        return result;
      }),
    );
  }

  /** Close every connection; events still waiting fail with `the publisher was closed`. */
  close(): void {
    for (const connection of this.#connections) connection.close();
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new SiegelError('invalid_options', `\`${name}\` must be a positive integer, got \`${value}\``);
  return value;
}
