// Looking events up on relays (NIP-01 `REQ` until `EOSE`), for `siegel verify` and the browser verify
// script alike: it uses nothing but the global `WebSocket` (Node 22+, every browser) and no Node module, so
// esbuild bundles it into siegel-verify.js. Relays are not trusted: every event a relay sends is checked by
// the caller's `accept` (id recomputed, signature verified) before it counts; the caller validates the relay
// URLs (`parseRelays` in Node).
import type { NostrEvent } from 'nostr-tools/core';
import { toTerminalSafe } from '../text/terminal-text.js';
import { isEventShape } from './event-shape.js';

/** Options of {@link queryRelay} and {@link fetchEventFromRelays}. */
export interface RelayQueryOptions {
  /** Time for one relay, from connecting to `EOSE`, in ms (default 10 000). */
  timeoutMs?: number;
  /** Whether an event a relay sent counts (checked id and signature); others are ignored. Default: all count. */
  accept?: (event: NostrEvent) => boolean;
  /** Events read from one relay, at most, counted or not (default 50): a relay cannot flood the reader. */
  maxEvents?: number;
  /** Stop at the first event that counts (default false: read until `EOSE`). */
  first?: boolean;
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

let counter = 0;

/**
 * One `REQ` for `filter` on `relay`, until `EOSE` (or the first event that counts, with `first`). Never
 * throws: failures are in the answer's `error`.
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
  const subscription = `siegel-${++counter}`;
  const answer: RelayAnswer = { relay, events: [], rejected: 0 };
  return new Promise((resolve) => {
    let socket: WebSocket;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error !== undefined) answer.error = error;
      try {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(['CLOSE', subscription]));
        socket.close();
      } catch {}
      resolve(answer);
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    try {
      socket = new WebSocket(relay);
    } catch (error) {
      clearTimeout(timer);
      resolve({ ...answer, error: `cannot connect: ${(error as Error).message}` });
      return;
    }
    socket.onopen = () => socket.send(JSON.stringify(['REQ', subscription, filter]));
    socket.onerror = () => finish('cannot connect');
    socket.onclose = () => finish('closed the connection');
    socket.onmessage = (message) => {
      let data: unknown;
      try {
        data = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!Array.isArray(data) || data[1] !== subscription) return;
      if (data[0] === 'EOSE') finish();
      else if (data[0] === 'CLOSED')
        finish(`refused: ${toTerminalSafe(String(data[2] ?? ''), { singleLine: true }).slice(0, 300)}`);
      else if (data[0] === 'EVENT') {
        const event = data[2] as NostrEvent;
        if (isEventShape(event) && (options.accept?.(event) ?? true)) answer.events.push(event);
        else answer.rejected++;
        if (options.first && answer.events.length > 0) finish();
        else if (answer.events.length + answer.rejected >= maxEvents) finish();
      }
    };
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
  return new Promise((resolve) => {
    const answers: RelayAnswer[] = [];
    let settled = false;
    if (relays.length === 0) resolve({ event: undefined, answers });
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
