// The relay outbox in SQLite: owed deliveries, backoff per failed attempt, what is due, what was delivered,
// and the publishing service's bookkeeping over a sender that answers per relay.
import type { NostrEvent } from 'nostr-tools/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RelayDeliveries, retryDelayMs } from '../src/publishing/relay-deliveries.js';
import { type RelayOutcome, RelayPublishing } from '../src/publishing/relay-publishing.js';
import { makeTestApp, signRequest, uploadForm } from './test-app.js';

const apps: Awaited<ReturnType<typeof makeTestApp>>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A test app with one signed Markdown file; its event. */
async function signedEvent(): Promise<{ deliveries: RelayDeliveries; event: NostrEvent }> {
  const t = await makeTestApp();
  apps.push(t);
  const body = await (
    await signRequest(t.app, uploadForm('a.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n# A\n')))
  ).json();
  return { deliveries: new RelayDeliveries(t.records.db, { firstRetryMs: 1000 }), event: body.event };
}

describe('relay outbox', () => {
  it('backs off 30 s, 1 min, 2 min … up to 1 h', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(30)).toBe(3_600_000);
    expect(retryDelayMs(2, 1000)).toBe(2000);
  });

  it('owes an event to each relay until it is delivered; a failure waits for its backoff', async () => {
    const { deliveries, event } = await signedEvent();
    deliveries.enqueue(event.id, ['wss://a.example', 'wss://b.example'], 10_000);
    expect(deliveries.due(10_000).map((d) => d.relay)).toEqual(['wss://a.example', 'wss://b.example']);
    expect(deliveries.due(10_000)[0]?.event).toEqual(event);
    deliveries.markDelivered(event.id, 'wss://a.example', 10_500);
    deliveries.markFailed(event.id, 'wss://b.example', 'cannot connect', 0, 10_500);
    expect(deliveries.deliveredTo(event.id)).toEqual(['wss://a.example']);
    expect(deliveries.due(11_000)).toEqual([]);
    expect(deliveries.due(11_500).map((d) => [d.relay, d.attempts])).toEqual([['wss://b.example', 1]]);
    deliveries.markFailed(event.id, 'wss://b.example', 'cannot connect', 1, 11_500);
    expect(deliveries.due(13_000)).toEqual([]);
    expect(deliveries.due(13_500).map((d) => d.attempts)).toEqual([2]);
    // Enqueueing again keeps what is known.
    deliveries.enqueue(event.id, ['wss://a.example'], 20_000);
    expect(deliveries.count()).toEqual({ pending: 1, delivered: 1 });
  });

  it('publish lists only the relays that said OK, in configuration order, and retries the rest', async () => {
    const { deliveries, event } = await signedEvent();
    const relays = ['wss://c.example', 'wss://refuses.example', 'wss://a.example'];
    let now = 1_000;
    let refuse = true;
    const sent: string[][] = [];
    const publishing = new RelayPublishing({
      relays,
      deliveries,
      now: () => now,
      log: () => {},
      send: async (events, to) => {
        sent.push([...to]);
        return new Map(
          events.map((e): [string, RelayOutcome[]] => [
            e.id,
            to.map((relay) =>
              relay === 'wss://refuses.example' && refuse
                ? { relay, ok: false, message: 'blocked: no' }
                : { relay, ok: true, message: '' },
            ),
          ]),
        );
      },
    });
    expect(await publishing.publish(event)).toEqual(['wss://c.example', 'wss://a.example']);
    await publishing.retryDue();
    expect(sent).toEqual([relays]);
    now += 1_000;
    refuse = false;
    await publishing.retryDue();
    expect(sent.at(-1)).toEqual(['wss://refuses.example']);
    expect(deliveries.deliveredTo(event.id)).toEqual([...relays].sort());
  });
});
