// Issue 22, M3: the file server waited for relays while holding an upload slot — with one silent relay among
// healthy ones, 60 signs from 20 clients got 10 × 503 and a median of 10.2 s. Now the sign route commits the
// record with its outbox rows and answers; the publisher loop delivers. Real processes: the built server, a
// bunker, a real relay and a relay that reads every EVENT and never answers (until it is told to).
// How long the answers take, against healthy relays only, is bench/server/relays.mjs's figure; that an answer
// waits for a silent relay only a little longer than the first relay took, and never in its upload slot, is
// server/test/relay-deliveries.test.ts's (on a fake clock). Here: what 20 clients get from the real server.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, signOverHttp, startServer } from '../server/server-process.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): a silent relay behind a real server: 7 s alone
vi.setConfig({ testTimeout: 60_000 });

const SIGNS = 60;
const CLIENTS = 20;

let bunker: RunningBunker;
let healthy: RunningRelay;
let silent: RunningRelay;
let server: RunningServer;

const markdown = (i: number) =>
  new TextEncoder().encode(`---\nauthor: Jane Writer\ntitle: Note ${i}\n---\n# Note ${i}\n\nWords ${i}.\n`);

beforeAll(async () => {
  [bunker, healthy, silent] = await Promise.all([startBunker(), startRelay(), startRelay({ silent: true })]);
  server = await startServer({
    bunker,
    env: {
      SIEGEL_RELAYS: [healthy.url, silent.url].join(','),
      RELAY_RETRY_MS: '1000',
      SIGN_RATE_LIMIT: '1000',
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([healthy?.stop(), silent?.stop()]);
  await bunker?.stop();
});

async function publishedTo(hash: string): Promise<string[]> {
  const response = await fetch(`${server.url}/api/verify?hash=${hash}`);
  return ((await response.json()) as { published_to: string[] }).published_to;
}

describe('a silent relay among healthy ones (issue 22, M3)', () => {
  const answers: { status: number; ms: number; hash: string; id: string; publishedTo: string[] }[] = [];

  it(`${SIGNS} signs from ${CLIENTS} clients: no 503, every answer without the silent relay`, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < SIGNS) {
          const i = next++;
          const started = performance.now();
          const { status, body } = await signOverHttp(server, `note-${i}.md`, markdown(i));
          answers.push({
            status,
            ms: performance.now() - started,
            hash: body.hash,
            id: body.event?.id,
            publishedTo: body.published_to,
          });
        }
      }),
    );
    // No 503: answers that held their upload slots while they waited for the silent relay (5 s: the server's
    // wait for an `OK`) leave the last of 20 clients waiting past UPLOAD_WAIT_MS (10 s) for one of 8 slots.
    expect(answers.map((answer) => answer.status)).toEqual(Array(SIGNS).fill(200));
    // A ceiling against a hang, ten times the longest an answer waits for relays (RELAY_WAIT_MS, 2 s): the
    // times themselves are bench/server/relays.mjs's, next to healthy relays only.
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    expect(slowest).toBeLessThan(20_000);
    // The healthy relay confirms at once; the silent one is never listed while it is silent.
    for (const answer of answers) expect(answer.publishedTo).toEqual([healthy.url]);
  });

  it('every event reaches the healthy relay; the verify API lists it, and not the silent one', async () => {
    const ids = answers.map((answer) => answer.id);
    expect(await queryRelay(healthy.url, { ids })).toHaveLength(SIGNS);
    expect(await publishedTo(answers[0]?.hash ?? '')).toEqual([healthy.url]);
  });

  it('once the silent relay answers, every event reaches it too, and the verify API and event page say so', async () => {
    await silent.answer();
    const ids = answers.map((answer) => answer.id);
    // Each delivery timed out (5 s) and is offered again 1 s later (RELAY_RETRY_MS), doubling per attempt.
    await eventually(async () => (await queryRelay(silent.url, { ids })).length === SIGNS, 60_000);
    await eventually(async () => (await publishedTo(answers[0]?.hash ?? '')).length === 2, 10_000);
    expect(await publishedTo(answers.at(-1)?.hash ?? '')).toEqual([healthy.url, silent.url]);
    const page = await (await fetch(`${server.url}/verify/${answers[0]?.id}`)).text();
    expect(page).toContain(`${healthy.url}, ${silent.url}`);
    expect(server.output()).toMatch(
      /Relays for event [0-9a-f]{12}…: 1 of 2 published, \d+ waiting \(ws:\/\/127\.0\.0\.1:\d+: timed out: no OK within 5 s\)/,
    );
  });
});
