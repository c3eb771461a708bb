// The relay outbox in SQLite: owed deliveries (written with the record), backoff per failed attempt, what is
// due, claims with a lease, what was delivered, and the publisher loop's bookkeeping over a sender that
// answers per relay.
import type { NostrEvent } from 'nostr-tools/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RelayOutcome, RelayPublishing } from '../src/publishing/relay-publishing.js';
import type { DeliveryStore } from '../src/storage/delivery-store.js';
import { retryDelayMs } from '../src/storage/delivery-store.js';
import { SqliteRecordStore } from '../src/storage/sqlite-record-store.js';
import { makeTestApp, signRequest, uploadForm } from './test-app.js';

const apps: Awaited<ReturnType<typeof makeTestApp>>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A test app with one signed Markdown file, owed to `relays` at `now`; its event. */
async function signedEvent(
  relays: readonly string[] = [],
  now = 10_000,
): Promise<{ deliveries: DeliveryStore; event: NostrEvent }> {
  const t = await makeTestApp();
  apps.push(t);
  const body = await (
    await signRequest(t.app, uploadForm('a.md', new TextEncoder().encode('---\nauthor: Ann Lee\n---\n# A\n')))
  ).json();
  // The sign route wrote the record without relays; write one more, the way the signer does, with its rows.
  const record = await t.records.findByHash(body.hash);
  if (record === undefined) throw new Error('not recorded');
  const event: NostrEvent = { ...record.event, id: 'f'.repeat(64) };
  await t.records.insert(
    { ...record, hash: 'e'.repeat(64), eventId: event.id, event },
    { deliverTo: relays, now },
  );
  return { deliveries: t.records.deliveries, event };
}

describe('relay outbox', () => {
  it('backs off 30 s, 1 min, 2 min … up to 1 h', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(30)).toBe(3_600_000);
    expect(retryDelayMs(2, 1000)).toBe(2000);
  });

  it('owes an event to each relay until it is delivered; a failure waits for its backoff', async () => {
    const { deliveries, event } = await signedEvent(['wss://a.example', 'wss://b.example'], 10_000);
    expect((await deliveries.claimDue(10_000, 0)).map((d) => d.relay)).toEqual([
      'wss://a.example',
      'wss://b.example',
    ]);
    expect((await deliveries.claimDue(10_000, 0))[0]?.event).toEqual(event);
    await deliveries.markDelivered(event.id, 'wss://a.example', 10_500);
    await deliveries.markFailed(
      event.id,
      'wss://b.example',
      'cannot connect',
      10_500 + retryDelayMs(1, 1000),
    );
    expect(await deliveries.deliveredTo(event.id)).toEqual(['wss://a.example']);
    expect(await deliveries.claimDue(11_000, 0)).toEqual([]);
    expect((await deliveries.claimDue(11_500, 0)).map((d) => [d.relay, d.attempts])).toEqual([
      ['wss://b.example', 1],
    ]);
    await deliveries.markFailed(
      event.id,
      'wss://b.example',
      'cannot connect',
      11_500 + retryDelayMs(2, 1000),
    );
    expect(await deliveries.claimDue(13_000, 0)).toEqual([]);
    expect((await deliveries.claimDue(13_500, 0)).map((d) => d.attempts)).toEqual([2]);
    expect(await deliveries.count()).toEqual({ pending: 1, delivered: 1 });
  });

  it('a claim leases what is due: a second claim gets nothing until the lease ends', async () => {
    const { deliveries } = await signedEvent(['wss://a.example', 'wss://b.example'], 10_000);
    expect((await deliveries.claimDue(10_000, 30_000)).map((d) => d.relay)).toEqual([
      'wss://a.example',
      'wss://b.example',
    ]);
    expect(await deliveries.claimDue(20_000, 30_000)).toEqual([]);
    // The claimer died: due again for anyone when the lease ends, attempts unchanged.
    expect((await deliveries.claimDue(40_000, 30_000)).map((d) => [d.relay, d.attempts])).toEqual([
      ['wss://a.example', 0],
      ['wss://b.example', 0],
    ]);
  });

  it('a record that is refused as a duplicate writes no outbox rows either', async () => {
    const { deliveries, event } = await signedEvent(['wss://a.example'], 10_000);
    const t = apps.at(-1) as Awaited<ReturnType<typeof makeTestApp>>;
    const record = await t.records.findByEventId(event.id);
    if (record === undefined) throw new Error('not recorded');
    const other = { ...record, eventId: 'd'.repeat(64), event: { ...event, id: 'd'.repeat(64) } };
    await expect(t.records.insert(other, { deliverTo: ['wss://b.example'] })).rejects.toThrow(
      /already exists/,
    );
    expect(await deliveries.count()).toEqual({ pending: 1, delivered: 0 });
  });

  it('the loop sends what is due, lists only the relays that said OK, and retries the rest', async () => {
    const relays = ['wss://c.example', 'wss://refuses.example', 'wss://a.example'];
    const { deliveries, event } = await signedEvent(relays, 1_000);
    let now = 1_000;
    let refuse = true;
    const sent: string[][] = [];
    const lines: string[] = [];
    const publishing = new RelayPublishing({
      relays,
      deliveries,
      firstRetryMs: 1000,
      now: () => now,
      log: (line) => lines.push(line),
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
    const [confirmed] = await Promise.all([publishing.waitForDelivery(event.id, 5_000), publishing.runDue()]);
    expect(confirmed).toEqual(['wss://c.example', 'wss://a.example']);
    expect(lines.at(-1)).toBe(
      `Relays for event ${event.id.slice(0, 12)}…: 2 of 3 published, 1 waiting (wss://refuses.example: blocked: no)`,
    );
    await publishing.runDue();
    expect(sent.map((to) => to[0]).sort()).toEqual([...relays].sort()); // once each, nothing due yet
    now += 1_000;
    refuse = false;
    await publishing.runDue();
    expect(sent.at(-1)).toEqual(['wss://refuses.example']);
    expect(await publishing.deliveredTo(event.id)).toEqual(relays);
    expect(lines.at(-1)).toBe(`Relays for event ${event.id.slice(0, 12)}…: 1 of 1 published, 0 waiting`);
  });

  it('an answer waits for a slow relay only a little longer than the first relay took', async () => {
    const relays = ['wss://fast.example', 'wss://never.example'];
    const { deliveries, event } = await signedEvent(relays, Date.now());
    // On a fake clock (the answer's wait, its timers and the fast relay's 200 ms): nothing here depends on how
    // fast this machine is.
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
    });
    try {
      const publishing = new RelayPublishing({
        relays,
        deliveries,
        log: () => {},
        send: (events, to) =>
          to[0] === 'wss://fast.example'
            ? new Promise((resolve) =>
                setTimeout(
                  () =>
                    resolve(
                      new Map(
                        events.map((e): [string, RelayOutcome[]] => [
                          e.id,
                          [{ relay: to[0] as string, ok: true, message: '' }],
                        ]),
                      ),
                    ),
                  200,
                ),
              )
            : new Promise(() => {}), // never answers
      });
      let confirmed: string[] | undefined;
      void publishing.waitForDelivery(event.id, 10_000).then((taken) => {
        confirmed = taken;
      });
      publishing.wake();
      // The fast relay confirms at 200 ms; the answer then gives the other one until 2 × 200 + 100 ms, not
      // the 10 s it may wait at most.
      await vi.advanceTimersByTimeAsync(450);
      expect(confirmed).toBeUndefined();
      await vi.advanceTimersByTimeAsync(100);
      expect(confirmed).toEqual(['wss://fast.example']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a sign answer waits for its relays without holding its upload slot (issue 22, M3)', async () => {
    const records = new SqliteRecordStore(':memory:');
    let sending!: () => void;
    const sent = new Promise<void>((resolve) => {
      sending = resolve;
    });
    const publishing = new RelayPublishing({
      relays: ['wss://silent.example'],
      deliveries: records.deliveries,
      log: () => {},
      send: () => {
        sending();
        return new Promise(() => {}); // a relay that never answers
      },
    });
    // One upload at a time, and no waiting for room: an upload that finds the slot taken gets 503 at once.
    const t = await makeTestApp({
      records,
      publishing,
      relayWaitMs: 1000,
      maxUploadsInFlight: 1,
      uploadWaitMs: 0,
    });
    apps.push(t);
    const markdown = (title: string) => new TextEncoder().encode(`---\nauthor: Ann Lee\n---\n# ${title}\n`);
    const first = signRequest(t.app, uploadForm('a.md', markdown('A')));
    await sent; // the first upload's record is committed and its event on the way to the silent relay
    const second = await signRequest(t.app, uploadForm('b.md', markdown('B')));
    expect(second.status).toBe(200);
    const answer = await first;
    expect(answer.status).toBe(200);
    expect((await answer.json()).published_to).toEqual([]);
    await records.close(); // its passes never end: the relay never answers
  });
});
