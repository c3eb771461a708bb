// Looking events up on relays (NIP-01 `REQ` until `EOSE`) on nostr-tools' relay, on any WebSocket: the
// browser verify script uses this module as it is (the browser's WebSocket; esbuild bundles it into
// siegel-verify.js, so no Node module may enter here); Node code uses relay-query.ts, which passes `ws` with
// a size cap. Relays are not trusted: every event a relay sends is checked by the caller's `accept` (id
// recomputed, signature verified) before it counts; the caller validates the relay URLs (`parseRelays` in
// Node, `pickRelayHints` for hints).
import type { NostrEvent } from 'nostr-tools/core';
import type { Filter } from 'nostr-tools/filter';
import { toTerminalSafe } from '../text/terminal-text.js';
import { RelayConnection } from './relay-connection.js';

/** Options of {@link queryRelay} and {@link fetchEventFromRelays}. */
export interface RelayQueryOptions {
  /** Time for one relay, from connecting to `EOSE`, in ms (default 10 000). */
  timeoutMs?: number;
  /**
   * Time for the connection to open, in ms (default: `timeoutMs`): a relay that cannot be reached costs
   * this, not the whole query's time.
   */
  connectTimeoutMs?: number;
  /** Ends the query at once (its answer: `error` "stopped"), e.g. when another relay already answered. */
  signal?: AbortSignal;
  /** Whether an event a relay sent counts (checked id and signature); others are ignored. Default: all count. */
  accept?: (event: NostrEvent) => boolean;
  /** Events read from one relay, at most, counted or not (default 50): a relay cannot flood the reader. */
  maxEvents?: number;
  /** Stop at the first event that counts (default false: read until `EOSE`). */
  first?: boolean;
  /**
   * The WebSocket class to reach `relay` with (default: the global `WebSocket`; in Node, relay-query.ts
   * gives `ws` capped at 2 MiB per message).
   */
  websocket?: (relay: string) => typeof WebSocket;
  /** Connections kept open between queries ({@link RelayPool}); default: each query its own, closed after it. */
  pool?: RelayPool;
}

/**
 * Connections kept open between queries (`RelayQueryOptions.pool`), one per relay: nostr-tools closes one
 * once it has had no subscription for `idleMs`, and one that closes (or never opened in time) is dropped.
 * For a reader's browser that checks page after page against the same few relays, where every query on its
 * own connection costs a WebSocket handshake at both ends.
 *
 * @example
 * ```ts
 * const pool = new RelayPool();
 * await queryRelay('wss://relay.example.com', { ids: [id] }, { pool }); // opens it
 * await queryRelay('wss://relay.example.com', { kinds: [0], authors: [pubkey] }, { pool }); // reuses it
 * ```
 */
export class RelayPool {
  readonly #open = new Map<string, RelayConnection>();
  constructor(readonly idleMs = 30_000) {}

  /** The connection to `relay`, opened (not yet connected) if there is none. @throws on a URL `WebSocket` refuses. */
  connectionTo(relay: string, websocket: typeof WebSocket): RelayConnection {
    let connection = this.#open.get(relay);
    if (!connection) {
      const opened = new RelayConnection(relay, websocket, { idleTimeout: this.idleMs });
      opened.onclose = () => this.drop(relay, opened);
      this.#open.set(relay, opened);
      connection = opened;
    }
    return connection;
  }

  /** Forget `connection` (if it is still `relay`'s) and close it. */
  drop(relay: string, connection: RelayConnection): void {
    if (this.#open.get(relay) !== connection) return;
    this.#open.delete(relay);
    connection.close();
  }

  /** Close every connection. */
  close(): void {
    for (const [relay, connection] of this.#open) this.drop(relay, connection);
  }
}

/** What one relay answered: the events that counted, or why there were none. */
export interface RelayAnswer {
  relay: string;
  events: NostrEvent[];
  /** Set when the query did not end with `EOSE`: cannot connect, closed, too slow. */
  error?: string;
  /** Events the relay sent that did not count (wrong id, bad signature, not an event). */
  rejected: number;
}

export const RELAY_QUERY_DEFAULTS = { timeoutMs: 10_000, maxEvents: 50 } as const;

/**
 * One `REQ` for `filter` on `relay`, on its own connection, until `EOSE` (or the first event that counts,
 * with `first`). Never throws: failures are in the answer's `error`.
 *
 * @example
 * ```ts
 * const answer = await queryRelay('wss://relay.example.com', { ids: [id] }, { accept: isValid });
 * ```
 */
export function queryRelay(
  relay: string,
  filter: Record<string, unknown>,
  options: RelayQueryOptions = {},
): Promise<RelayAnswer> {
  const timeoutMs = options.timeoutMs ?? RELAY_QUERY_DEFAULTS.timeoutMs;
  const maxEvents = options.maxEvents ?? RELAY_QUERY_DEFAULTS.maxEvents;
  const answer: RelayAnswer = { relay, events: [], rejected: 0 };
  const { pool } = options;
  let connection: RelayConnection;
  try {
    const websocket = options.websocket?.(relay) ?? WebSocket;
    connection = pool ? pool.connectionTo(relay, websocket) : new RelayConnection(relay, websocket);
  } catch (error) {
    return Promise.resolve({ ...answer, error: `cannot connect: ${(error as Error).message}` });
  }
  return new Promise((resolve) => {
    let subscription: ReturnType<RelayConnection['subscribe']> | undefined;
    let lost = false;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(connecting);
      options.signal?.removeEventListener('abort', stop);
      if (error !== undefined) answer.error = error;
      // nostr-tools clears a subscription's own EOSE timer only on EOSE: end it here, or the timer would
      // keep the process alive after the query.
      subscription?.receivedEose();
      subscription?.close();
      // nostr-tools sends that `CLOSE` a microtask later (once its connection promise has settled): close
      // the socket after it, or a browser logs "WebSocket is already in CLOSING or CLOSED state" for each
      // query, on the reader's verify page. A pool's connection stays open.
      if (!pool) queueMicrotask(() => connection.close());
      resolve(answer);
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    const connectTimeoutMs = options.connectTimeoutMs ?? timeoutMs;
    const connecting =
      connectTimeoutMs < timeoutMs
        ? setTimeout(() => {
            // A pool's connection that did not open in time is not kept for the next query.
            pool?.drop(relay, connection);
            finish(`cannot connect within ${connectTimeoutMs / 1000} s`);
          }, connectTimeoutMs)
        : undefined;
    const stop = () => finish('stopped: another relay answered first');
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    // Called by nostr-tools before it closes the subscriptions of a connection that ended (a pool's
    // connection has the pool's: it is lost when it is no longer connected).
    if (!pool)
      connection.onclose = () => {
        lost = true;
      };
    connection.connect().then(
      () => {
        clearTimeout(connecting);
        if (done) return;
        subscription = connection.subscribe([filter as Filter], {
          // This query's own timer rules: nostr-tools' EOSE timer must not end it first.
          eoseTimeout: timeoutMs * 2,
          oneose: () => finish(),
          onclose: (reason) =>
            finish(
              lost || (pool !== undefined && !connection.connected)
                ? 'closed the connection'
                : `refused: ${toTerminalSafe(String(reason ?? ''), { singleLine: true }).slice(0, 300)}`,
            ),
          onevent: (event) => {
            if (options.accept?.(event) ?? true) answer.events.push(event);
            else answer.rejected++;
            if (options.first && answer.events.length > 0) finish();
            else if (answer.events.length + answer.rejected >= maxEvents) finish();
          },
          oninvalidevent: () => {
            answer.rejected++;
            if (answer.events.length + answer.rejected >= maxEvents) finish();
          },
        });
      },
      () => finish('cannot connect'),
    );
  });
}

/** Where {@link fetchEventFromRelays} found the event, or what every relay said. */
export type RelayLookup = { event: NostrEvent; relay: string } | { event: undefined; answers: RelayAnswer[] };

/**
 * Ask every relay at once for the event `id` (`{ids: [id]}`); the first event with exactly that id that
 * `accept` takes wins, and the other queries are closed. An event with another id never counts.
 *
 * @example
 * ```ts
 * const found = await fetchEventFromRelays(id, ['wss://relay.example.com'], { accept: isValid });
 * if (found.event) console.log(`event from ${found.relay}`);
 * ```
 */
export async function fetchEventFromRelays(
  id: string,
  relays: readonly string[],
  options: RelayQueryOptions = {},
): Promise<RelayLookup> {
  const accept = (event: NostrEvent) => event.id === id && (options.accept?.(event) ?? true);
  const answers: RelayAnswer[] = [];
  if (relays.length === 0) return { event: undefined, answers };
  return new Promise((resolve) => {
    let settled = false;
    for (const relay of relays) {
      void queryRelay(relay, { ids: [id], limit: 1 }, { ...options, accept, first: true }).then((answer) => {
        answers.push(answer);
        const event = answer.events[0];
        if (settled) return;
        if (event) {
          settled = true;
          resolve({ event, relay });
        } else if (answers.length === relays.length) {
          settled = true;
          // In the order given, for a stable message.
          answers.sort((a, b) => relays.indexOf(a.relay) - relays.indexOf(b.relay));
          resolve({ event: undefined, answers });
        }
      });
    }
  });
}

/** `event not found on relays `a` (not there), `b` (cannot connect)`. */
export function describeRelayMiss(answers: readonly RelayAnswer[]): string {
  if (answers.length === 0) return 'event not found: no relay to ask';
  const each = answers.map((answer) => {
    const why =
      answer.error ??
      (answer.rejected > 0
        ? `sent ${answer.rejected} event${answer.rejected === 1 ? '' : 's'} that did not check out`
        : 'not there');
    return `\`${answer.relay}\` (${why})`;
  });
  return `event not found on relays ${each.join(', ')}`;
}
