// Publishing events to relays from Node (the CLI's `siegel sign`/`siegel publish`, the file server) on
// nostr-tools' relay: its `OK` promise and answer timeout per event, its ping, over `ws` capped at 2 MiB per
// message (relay-socket.ts) — one oversized relay message closes that relay's connection (1009) instead of
// filling memory.
import { SendingOnClosedConnection } from 'nostr-tools/abstract-relay';
import type { NostrEvent } from 'nostr-tools/core';
import PQueue from 'p-queue';
import { SiegelError } from '../errors.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import { createNodeRelay } from './relay.js';
import type { RelayConnection } from './relay-connection.js';
import { describeTooLarge } from './relay-socket.js';
import { parseRelays } from './relays.js';

/** Defaults of {@link RelayPublisher}. */
export const PUBLISH_DEFAULTS = {
  /** Time to open a relay's WebSocket, in milliseconds. */
  connectTimeoutMs: 10_000,
  /** Time a relay has to answer one `EVENT` with `OK`, from sending it, in milliseconds. */
  answerTimeoutMs: 15_000,
  /**
   * `EVENT` messages in flight (sent, not yet answered) per relay connection. Pipelining pays wherever a
   * relay is far away (`npm run bench:publish`, 300 events through 20 ms of latency each way: 16× one at a
   * time, 6–9× while the 2-core machine was busy); the bound keeps each answer's timeout measured from its
   * own sending, and a relay's backlog short, without costing throughput (unbounded was no faster).
   */
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

/** Connections opened again after the relay closed an open one, per relay and publisher. */
const MAX_RECONNECTS = 3;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** nostr-tools' words for a connection that ended while an event waited for its `OK`. */
const CONNECTION_ENDED = /^relay connection (closed|failed)/;

/**
 * One relay: a nostr-tools relay connection on `ws` (capped, relay-socket.ts), opened on the first event,
 * with up to `window` events in flight on it (a `p-queue`, the run's one queue library) — each sent as soon as it gets a slot, each `OK`
 * matched to its event by nostr-tools, each with its own answer timeout from the moment it is sent. A
 * relay that cannot be reached, or that sends a message over the cap, fails every event it holds and every
 * later one with the same reason: it costs one connect attempt per publisher. When the relay closes an open
 * connection, the events in flight fail and the waiting ones go out on a new one (a few times).
 */
class RelayLink {
  readonly url: string;
  readonly #options: Required<RelayPublisherOptions>;
  readonly #window: PQueue;
  /** Every event this link was given, by id: the same event twice gets the one answer. */
  readonly #known = new Map<string, Promise<RelayAnswer>>();
  #relay: RelayConnection | undefined;
  #connecting: Promise<RelayConnection> | undefined;
  #abortConnect: ((error: Error) => void) | undefined;
  #connections = 0;
  #dead: string | undefined;
  #tooLarge = false;
  #closed = false;

  constructor(url: string, options: Required<RelayPublisherOptions>) {
    this.url = url;
    this.#options = options;
    this.#window = new PQueue({ concurrency: options.window });
  }

  send(event: NostrEvent): Promise<RelayAnswer> {
    const known = this.#known.get(event.id);
    if (known) return known;
    const answer = this.#dead
      ? Promise.resolve<RelayAnswer>({ ok: false, reason: this.#dead })
      : this.#window.add(() => this.#publish(event));
    this.#known.set(event.id, answer);
    return answer;
  }

  close(): void {
    this.#closed = true;
    this.#dead ??= 'the publisher was closed';
    this.#abortConnect?.(new Error(this.#dead));
    this.#relay?.close();
  }

  async #publish(event: NostrEvent): Promise<RelayAnswer> {
    if (this.#dead) return { ok: false, reason: this.#dead };
    let relay: RelayConnection;
    try {
      relay = await this.#connection();
    } catch {
      return { ok: false, reason: this.#dead ?? 'cannot connect' };
    }
    try {
      return { ok: true, message: await relay.publish(event) };
    } catch (error) {
      return { ok: false, reason: this.#reasonOf(error) };
    }
  }

  /** The open connection, or a new one; fails for good once the relay cannot be reached. */
  #connection(): Promise<RelayConnection> {
    if (this.#relay?.connected) return Promise.resolve(this.#relay);
    if (this.#connecting) return this.#connecting;
    if (this.#connections > MAX_RECONNECTS) {
      this.#dead ??= 'the relay closed the connection';
      return Promise.reject(new Error(this.#dead));
    }
    this.#connections++;
    const relay = createNodeRelay(this.url, { enablePing: true, onTooLarge: () => this.#onTooLarge() });
    relay.publishTimeout = this.#options.answerTimeoutMs;
    relay.onclose = () => {
      if (this.#relay === relay) this.#relay = undefined;
    };
    const opened = new Promise<RelayConnection>((resolve, reject) => {
      // nostr-tools leaves a connect that `close()` interrupts pending: the publisher ends it here.
      this.#abortConnect = reject;
      relay.connect({ timeout: this.#options.connectTimeoutMs }).then(
        () => resolve(relay),
        (error: unknown) => {
          this.#dead ??=
            error === 'connection timed out'
              ? `cannot connect: no connection within ${seconds(this.#options.connectTimeoutMs)}`
              : 'cannot connect';
          reject(new Error(this.#dead));
        },
      );
    });
    this.#connecting = opened
      .then((open) => {
        if (this.#closed) {
          open.close();
          throw new Error(this.#dead);
        }
        this.#relay = open;
        return open;
      })
      .finally(() => {
        this.#connecting = undefined;
        this.#abortConnect = undefined;
      });
    return this.#connecting;
  }

  #onTooLarge(): void {
    this.#tooLarge = true;
    // A relay that sends more than the cap once is not asked again by this publisher.
    this.#dead ??= describeTooLarge();
  }

  #reasonOf(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    if (this.#closed) return 'the publisher was closed';
    if (this.#tooLarge) return describeTooLarge();
    if (message === 'publish timed out')
      return `timed out: no OK within ${seconds(this.#options.answerTimeoutMs)}`;
    if (CONNECTION_ENDED.test(message) || error instanceof SendingOnClosedConnection)
      return 'the relay closed the connection';
    // `OK` false: the relay's own words.
    return `refused: ${toTerminalSafe(message, { singleLine: true }).slice(0, 300) || 'no reason given'}`;
  }
}

/**
 * Publishes Nostr events to relays as NIP-01 `EVENT` messages: one nostr-tools relay connection per relay
 * (on `ws`, at most 2 MiB per message), opened on the first event, with many events in flight on it at once
 * (a bounded window), each relay's `OK` matched to its event by id. A relay counts for an event only when it answers `OK` true (`duplicate:` included). Failures are
 * results, never exceptions: refused (`refused: blocked: …`, the relay's message), timed out (connect or
 * answer), cannot connect, closed, `sent a message larger than 2 MiB` (its connection closed with 1009). A
 * relay that cannot be reached is tried once per publisher; make a new one to try again.
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
  readonly #links: RelayLink[];

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
    this.#links = this.relays.map((url) => new RelayLink(url, resolved));
  }

  /**
   * Send `events` to every relay (or to `relays`, a subset of {@link relays}) and wait for their answers.
   * Calls may overlap: each goes out at once on the open connections. The results are in the order of
   * `events`. Never rejects.
   */
  async publish(events: readonly NostrEvent[], relays?: readonly string[]): Promise<EventPublishResult[]> {
    const links = relays ? this.#links.filter((link) => relays.includes(link.url)) : this.#links;
    return Promise.all(
      events.map(async (event) => {
        const answers = await Promise.all(links.map((link) => link.send(event)));
        const result: EventPublishResult = { event, accepted: [], failed: [] };
        for (const [index, answer] of answers.entries()) {
          const relay = (links[index] as RelayLink).url;
          if (answer.ok) result.accepted.push(relay);
          else result.failed.push({ relay, reason: answer.reason });
        }
        return result;
      }),
    );
  }

  /** Close every connection; events still waiting fail with `the publisher was closed`. */
  close(): void {
    for (const link of this.#links) link.close();
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new SiegelError('invalid_options', `\`${name}\` must be a positive integer, got \`${value}\``);
  return value;
}
