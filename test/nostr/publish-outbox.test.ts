// The outbox beside the cache and PublishSession's retries: what waits, when it is tried again (backoff),
// that nothing is lost (a corrupt outbox is moved aside, not overwritten), and that a relay that comes back
// empties it. A real relay process; a relay "down" is a free port nobody listens on.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatPublishReport, outboxFileOf, PublishSession, readOutbox } from '@siegel/core';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

let relay: RunningRelay;
let down: string;
let dir: string;
const key = generateSecretKey();
const MINUTE = 60_000;

const makeEvents = (count: number, label: string) =>
  Array.from(
    { length: count },
    (_, index) =>
      JSON.parse(
        JSON.stringify(
          finalizeEvent({ kind: 1, created_at: 1_700_000_000, tags: [], content: `${label} ${index}` }, key),
        ),
      ) as ReturnType<typeof finalizeEvent>,
  );

beforeAll(async () => {
  relay = await startRelay();
  down = `ws://127.0.0.1:${await freePort()}`;
  dir = await mkdtemp(join(tmpdir(), 'siegel-outbox-'));
});

afterAll(async () => {
  await relay?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the publishing outbox', () => {
  it('lives beside the cache', () => {
    expect(outboxFileOf('/site/.sign-cache.json')).toBe('/site/.sign-outbox.json');
    expect(outboxFileOf('/site/cache/blog.json')).toBe('/site/cache/blog.outbox.json');
  });

  it('keeps what a relay did not take, retries it with backoff (due only), and empties when it is delivered', async () => {
    const file = join(dir, 'retry.outbox.json');
    let now = 1_000_000;
    const events = makeEvents(3, 'retry');
    const open = async (relays: string[]) =>
      (await PublishSession.open({ relays, outboxFile: file, now: () => now })).session;

    const first = await open([relay.url, down]);
    first.send(events);
    const report = await first.finish();
    expect(report).toMatchObject({ events: 3, published: 0, unreached: 0, waiting: 3 });
    expect(report.relays).toEqual([
      { relay: relay.url, sent: 3, accepted: 3 },
      { relay: down, sent: 3, accepted: 0, reason: 'cannot connect' },
    ]);
    expect(formatPublishReport(report, dir)).toBe(
      `Siegel: 0 of 3 events published (${relay.url}: 3, ${down}: 0 — cannot connect); 3 waiting in retry.outbox.json`,
    );
    let { outbox } = await readOutbox(file);
    expect([...outbox.values()].map((entry) => [entry.relays, entry.attempts, entry.nextTry])).toEqual(
      Array(3).fill([[down], 1, now + MINUTE]),
    );

    // Not due yet: a run sends nothing, and the outbox stays as it is.
    now += MINUTE - 1;
    const early = await open([relay.url, down]);
    expect(early.sendOutbox({ dueOnly: true })).toBe(0);
    expect((await early.finish()).waiting).toBe(3);

    // Due: sent again (to the relay it still needs only), still down: the wait doubles.
    now += 1;
    const due = await open([relay.url, down]);
    expect(due.sendOutbox({ dueOnly: true })).toBe(3);
    const second = await due.finish();
    expect(second.relays.find((count) => count.relay === relay.url)?.sent).toBe(0);
    ({ outbox } = await readOutbox(file));
    expect([...outbox.values()].map((entry) => [entry.attempts, entry.nextTry])).toEqual(
      Array(3).fill([2, now + 2 * MINUTE]),
    );

    // The relay is back (here: its entries point at a relay that listens), and no relay is configured any
    // more: the outbox's events still go to the relays each still needs.
    const back = (await readFile(file, 'utf8')).replaceAll(down, relay.url);
    await writeFile(file, back);
    const last = await open([]);
    expect(last.sendOutbox()).toBe(3);
    expect(await last.finish()).toMatchObject({ waiting: 0, unreached: 0 });
    expect(await readdir(dir)).not.toContain('retry.outbox.json');
    const stored = await queryRelay(relay.url, { ids: events.map((event) => event.id) });
    expect(stored).toHaveLength(3);
  });

  it('counts an event no relay took as unreached', async () => {
    const file = join(dir, 'unreached.outbox.json');
    const { session } = await PublishSession.open({ relays: [down], outboxFile: file });
    session.send(makeEvents(2, 'unreached'));
    expect(await session.finish()).toMatchObject({ events: 2, published: 0, unreached: 2, waiting: 2 });
  });

  it('folds the journal an interrupted run left into the outbox: each event due at once, a torn last line skipped (issue 24)', async () => {
    const file = join(dir, 'journal.outbox.json');
    const [waiting, fresh] = makeEvents(2, 'journal');
    // The outbox file: one event still owed to `down`, delivered to the relay already.
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        events: [{ event: waiting, relays: [down], delivered: [relay.url], attempts: 2, nextTry: 9e12 }],
      }),
    );
    // The journal: both events were being sent to both relays when the run was killed mid-append.
    const line = (event: unknown) => JSON.stringify({ event, relays: [relay.url, down] });
    await writeFile(`${file}.journal`, `${line(waiting)}\n${line(fresh)}\n${line(fresh).slice(0, 40)}`);
    const { outbox, folded } = await readOutbox(file);
    expect(folded).toBe(2);
    expect(outbox.get(waiting?.id as string)).toMatchObject({
      relays: [down],
      delivered: [relay.url],
      attempts: 2,
      nextTry: 0,
    });
    expect(outbox.get(fresh?.id as string)).toMatchObject({
      relays: [relay.url, down],
      attempts: 0,
      nextTry: 0,
    });

    // Opening a session writes the folded outbox and drops the journal; a due-only run sends both.
    const { session } = await PublishSession.open({ relays: [relay.url], outboxFile: file });
    expect(await readdir(dir)).not.toContain('journal.outbox.json.journal');
    expect(session.sendOutbox({ dueOnly: true })).toBe(2);
    expect(await session.finish()).toMatchObject({ waiting: 2 });
    expect(await queryRelay(relay.url, { ids: [fresh?.id] })).toHaveLength(1);
  });

  it('moves a corrupt outbox aside (its content kept) instead of overwriting it', async () => {
    const file = join(dir, 'corrupt.outbox.json');
    await writeFile(file, '{"version":1,"events":[{"event":"half a wri');
    const { outbox, warning } = await readOutbox(file);
    expect(outbox.size).toBe(0);
    expect(warning).toMatch(
      /^Siegel: the outbox `.*corrupt\.outbox\.json` is not readable; moved to `.*corrupt\.outbox\.json\.corrupt-\d+`/,
    );
    const aside = (await readdir(dir)).find((name) => name.startsWith('corrupt.outbox.json.corrupt-'));
    expect(await readFile(join(dir, aside as string), 'utf8')).toBe(
      '{"version":1,"events":[{"event":"half a wri',
    );
  });
});
