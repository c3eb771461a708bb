import { RelayPublisher } from '@siegel/core';
import type { RelayOutcome, SendToRelays } from './relay-publishing.js';

/** Options of {@link createRelaySender}. */
export interface RelaySenderOptions {
  /** Longest wait to open a relay's connection, in ms (default 5 000). */
  connectTimeoutMs?: number;
  /** Longest wait for a relay's `OK` to one event, in ms (default 5 000). */
  answerTimeoutMs?: number;
  /** How long an unused connection stays open for the next events, in ms (default 10 000). */
  idleMs?: number;
  /** Events sent over one connection before the next ones go over a fresh one (default 1 000). */
  eventsPerConnection?: number;
}

/** Defaults of {@link createRelaySender}. */
export const RELAY_SENDER_DEFAULTS = {
  connectTimeoutMs: 5000,
  answerTimeoutMs: 5000,
  idleMs: 10_000,
  eventsPerConnection: 1000,
} as const;

/** A {@link SendToRelays} that keeps connections open between calls; `close()` ends them (at shutdown). */
export interface RelaySender {
  send: SendToRelays;
  close(): void;
}

/** One publisher (one WebSocket) to one relay, shared by the calls that overlap it. */
interface Session {
  publisher: RelayPublisher;
  calls: number;
  sent: number;
  retired: boolean;
  idle: NodeJS.Timeout | undefined;
}

/**
 * A {@link SendToRelays} on core's {@link RelayPublisher}, one publisher (so one WebSocket) per relay shared
 * by every call while it works: events are pipelined and each `OK` matched to its event (nostr-tools' relay
 * over `ws`, at most 2 MiB per relay message: a relay that sends more gets its connection closed with 1009,
 * so it cannot fill the server's memory, and fails that call like a relay that is down); a refusal (`OK`
 * false) comes with the relay's message, a relay that cannot be reached or does not answer with why. A
 * relay's publisher is retired after any failure (core's publisher remembers a relay that failed, and an
 * event's answer), after `eventsPerConnection` events, or after `idleMs` unused: later calls get a fresh
 * connection, the retired one closes once its last call is answered. A slow relay therefore costs its own
 * connection, never another relay's.
 */
export function createRelaySender(options: RelaySenderOptions = {}): RelaySender {
  const settings = { ...RELAY_SENDER_DEFAULTS, ...options };
  const timeouts = { connectTimeoutMs: settings.connectTimeoutMs, answerTimeoutMs: settings.answerTimeoutMs };
  const sessions = new Map<string, Session>();

  const retire = (relay: string, session: Session) => {
    session.retired = true;
    if (sessions.get(relay) === session) sessions.delete(relay);
    if (session.calls === 0) {
      clearTimeout(session.idle);
      session.publisher.close();
    }
  };
  const sessionFor = (relay: string): Session => {
    let session = sessions.get(relay);
    if (session === undefined) {
      session = {
        publisher: new RelayPublisher([relay], timeouts),
        calls: 0,
        sent: 0,
        retired: false,
        idle: undefined,
      };
      sessions.set(relay, session);
    }
    clearTimeout(session.idle);
    return session;
  };

  const sendToOne = async (
    relay: string,
    events: Parameters<SendToRelays>[0],
    outcomes: Map<string, RelayOutcome[]>,
  ) => {
    const session = sessionFor(relay);
    session.calls += 1;
    session.sent += events.length;
    if (session.sent >= settings.eventsPerConnection) retire(relay, session);
    let failed = false;
    try {
      for (const result of await session.publisher.publish(events)) {
        const list = outcomes.get(result.event.id);
        for (const accepted of result.accepted) list?.push({ relay: accepted, ok: true, message: '' });
        for (const { reason } of result.failed) list?.push({ relay, ok: false, message: reason });
        if (result.failed.length > 0) failed = true;
      }
    } finally {
      session.calls -= 1;
      if (failed || session.retired) retire(relay, session);
      else if (session.calls === 0) {
        session.idle = setTimeout(() => retire(relay, session), settings.idleMs);
        session.idle.unref();
      }
    }
  };

  return {
    async send(events, relays) {
      const outcomes = new Map(events.map((event): [string, RelayOutcome[]] => [event.id, []]));
      await Promise.all(relays.map((relay) => sendToOne(relay, events, outcomes)));
      return outcomes;
    },
    close() {
      for (const [relay, session] of [...sessions]) {
        session.calls = 0;
        retire(relay, session);
      }
    },
  };
}
