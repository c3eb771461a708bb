import type { NostrEvent } from 'nostr-tools/core';
import { Relay } from 'nostr-tools/relay';
import type { RelayOutcome, SendToRelays } from './relay-publishing.js';

/** Options of {@link createRelaySender}. */
export interface RelaySenderOptions {
  /** Longest wait to open a relay's connection, in ms (default 5 000). */
  connectTimeoutMs?: number;
  /** Longest wait for a relay's `OK` to one event, in ms (default 5 000). */
  answerTimeoutMs?: number;
}

/**
 * A {@link SendToRelays} on nostr-tools' relay client: per relay one WebSocket connection for the whole
 * batch, every event sent at once (pipelined) and each `OK` matched to its event; a relay's refusal
 * (`OK` false) is reported with its message, a connection that cannot be opened or an answer that does not
 * come with why. Connections are closed after the batch.
 */
export function createRelaySender(options: RelaySenderOptions = {}): SendToRelays {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const answerTimeoutMs = options.answerTimeoutMs ?? 5000;
  return async (events, relays) => {
    const outcomes = new Map<string, RelayOutcome[]>(events.map((event) => [event.id, []]));
    await Promise.all(
      relays.map(async (url) => {
        for (const [id, outcome] of await sendToOne(url, events, connectTimeoutMs, answerTimeoutMs)) {
          outcomes.get(id)?.push(outcome);
        }
      }),
    );
    return outcomes;
  };
}

async function sendToOne(
  url: string,
  events: readonly NostrEvent[],
  connectTimeoutMs: number,
  answerTimeoutMs: number,
): Promise<Map<string, RelayOutcome>> {
  const results = new Map<string, RelayOutcome>();
  let relay: Relay;
  try {
    relay = await Relay.connect(url, { timeout: connectTimeoutMs, enableReconnect: false });
  } catch (error) {
    const message = `cannot connect: ${(error as Error).message || String(error)}`;
    for (const event of events) results.set(event.id, { relay: url, ok: false, message });
    return results;
  }
  relay.publishTimeout = answerTimeoutMs;
  try {
    const answers = await Promise.allSettled(events.map((event) => relay.publish(event)));
    answers.forEach((answer, i) => {
      const id = (events[i] as NostrEvent).id;
      results.set(
        id,
        answer.status === 'fulfilled'
          ? { relay: url, ok: true, message: answer.value }
          : { relay: url, ok: false, message: (answer.reason as Error)?.message || String(answer.reason) },
      );
    });
  } finally {
    relay.close();
  }
  return results;
}
