import { RelayPublisher } from '@siegel/core';
import type { RelayOutcome, SendToRelays } from './relay-publishing.js';

/** Options of {@link createRelaySender}. */
export interface RelaySenderOptions {
  /** Longest wait to open a relay's connection, in ms (default 5 000). */
  connectTimeoutMs?: number;
  /** Longest wait for a relay's `OK` to one event, in ms (default 5 000). */
  answerTimeoutMs?: number;
}

/**
 * A {@link SendToRelays} on core's {@link RelayPublisher}: per call one publisher, so one WebSocket per
 * relay for the whole batch, events pipelined and each `OK` matched to its event; a refusal (`OK` false)
 * comes with the relay's message, a relay that cannot be reached or does not answer with why. The
 * connections are closed after the batch (a relay down now is tried afresh on the next call).
 */
export function createRelaySender(options: RelaySenderOptions = {}): SendToRelays {
  const timeouts = {
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    answerTimeoutMs: options.answerTimeoutMs ?? 5000,
  };
  return async (events, relays) => {
    const publisher = new RelayPublisher(relays, timeouts);
    try {
      const results = await publisher.publish(events);
      return new Map(
        results.map((result): [string, RelayOutcome[]] => [
          result.event.id,
          [
            ...result.accepted.map((relay) => ({ relay, ok: true, message: '' })),
            ...result.failed.map(({ relay, reason }) => ({ relay, ok: false, message: reason })),
          ],
        ]),
      );
    } finally {
      publisher.close();
    }
  };
}
