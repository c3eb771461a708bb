// Issue 13, acceptance 2: a file signed on the server with relays configured is sent to them as a NIP-01
// EVENT; `published_to` lists exactly the relays that answered OK true, and the event can be fetched from
// them; a relay that refuses (OK false) or cannot be reached is not listed. What a relay did not take waits
// in the SQLite outbox and reaches it once it is up (also across a restart of the server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, signOverHttp, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

let bunker: RunningBunker;
let first: RunningRelay;
let second: RunningRelay;
let refusing: RunningRelay;
let late: RunningRelay | undefined;
let server: RunningServer | undefined;
let downPort: number;

const markdown = (title: string) =>
  new TextEncoder().encode(`---\nauthor: Jane Writer\ntitle: ${title}\n---\n# ${title}\n\nSome words.\n`);

beforeAll(async () => {
  [bunker, first, second, refusing] = await Promise.all([
    useBunker(),
    startRelay(),
    startRelay(),
    startRelay({ refuse: 'this relay takes no file events' }),
  ]);
  downPort = await freePort();
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([first, second, refusing, late].map((relay) => relay?.stop()));
  await bunker?.stop();
});

describe('the file server publishes signed events to relays', () => {
  it('published_to lists exactly the relays that said OK, and they serve the event', async () => {
    const down = `ws://127.0.0.1:${downPort}`;
    server = await startServer({
      bunker,
      env: { SIEGEL_RELAYS: [first.url, refusing.url, down, second.url].join(','), RELAY_RETRY_MS: '1000' },
    });
    const running = server;
    await eventually(
      async () =>
        running.output().includes(`Publishing signed events to ${first.url}, ${refusing.url}, ${down}`),
      5_000,
    );
    const { status, body } = await signOverHttp(server, 'notes.md', markdown('Relay notes'));
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.published_to).toEqual([first.url, second.url]);
    const event = body.event as { id: string };
    for (const relay of [first, second]) {
      expect(await queryRelay(relay.url, { ids: [event.id] })).toEqual([event]);
    }
    expect(await queryRelay(refusing.url, { ids: [event.id] })).toEqual([]);
    // Issue 22: the log counts what is published and what waits ("2 of 4 published, 2 waiting"), so a run
    // that reached no relay never reads as success.
    expect(server.output()).toMatch(
      /Relays for event [0-9a-f]{12}…: 2 of 4 published, 2 waiting \(.*blocked: this relay takes no file events/,
    );
  });

  it('what a relay did not take waits in the outbox and reaches it once the relay is up', async () => {
    const { body } = await signOverHttp(server as RunningServer, 'later.md', markdown('Later'));
    const ids = [body.event.id as string];
    late = await startRelay({ port: downPort });
    // The first file's event and this one: both were owed to the relay that was down.
    await eventually(async () => (await queryRelay(late?.url ?? '', { kinds: [1063] })).length === 2, 20_000);
    expect((await queryRelay(late.url, { ids })).length).toBe(1);
    // The refusing relay keeps refusing: never counted, still owed, retried with backoff.
    expect(await queryRelay(refusing.url, { kinds: [1063] })).toEqual([]);
  });

  it('the outbox survives a restart: an event owed to a relay that was down is sent after the restart', async () => {
    await late?.stop();
    const { body } = await signOverHttp(server as RunningServer, 'restart.md', markdown('Restart'));
    expect(body.published_to).toEqual([first.url, second.url]);
    const dataDir = (server as RunningServer).dataDir;
    await server?.stop();
    late = await startRelay({ port: downPort });
    server = await startServer({
      bunker,
      dataDir,
      env: { SIEGEL_RELAYS: [first.url, `ws://127.0.0.1:${downPort}`].join(','), RELAY_RETRY_MS: '1000' },
    });
    await eventually(
      async () => (await queryRelay(late?.url ?? '', { ids: [body.event.id] })).length === 1,
      20_000,
    );
  });
});
