// The test relay (test/support/relay) behaves as a relay: it stores what verifies, says why it refuses,
// serves stored events back by filter, passes ephemeral events on without storing them, and a refusing
// relay answers OK false. Issue 13's tests rely on it.
import { finalizeEvent, generateSecretKey, getEventHash } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';

let relay: RunningRelay;
let refusing: RunningRelay;
const key = generateSecretKey();
const now = () => Math.floor(Date.now() / 1000);
/** An event as it travels (nostr-tools marks its own events with a symbol). */
const plain = (event: object) => JSON.parse(JSON.stringify(event)) as unknown;

beforeAll(async () => {
  [relay, refusing] = await Promise.all([startRelay(), startRelay({ refuse: 'not on the allow list' })]);
});

afterAll(async () => {
  await Promise.all([relay?.stop(), refusing?.stop()]);
});

/** Send `messages` on one connection; resolve with what came back once `count` answers arrived. */
function exchange(url: string, messages: unknown[], count: number): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const answers: unknown[][] = [];
    const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(answers)}`)), 10_000);
    socket.onopen = () => {
      for (const message of messages) socket.send(JSON.stringify(message));
    };
    socket.onmessage = (message) => {
      answers.push(JSON.parse(String(message.data)) as unknown[]);
      if (answers.length === count) {
        clearTimeout(timer);
        socket.close();
        resolve(answers);
      }
    };
  });
}

describe('the test relay', () => {
  it('stores a valid event (OK true), refuses a wrong signature and a wrong id, and serves it by id', async () => {
    const event = finalizeEvent(
      { kind: 1063, created_at: now(), tags: [['x', 'ab'.repeat(32)]], content: '' },
      key,
    );
    const forged = { ...event, content: 'changed' };
    forged.id = getEventHash(forged);
    const answers = await exchange(
      relay.url,
      [
        ['EVENT', event],
        ['EVENT', forged],
        ['EVENT', { ...event, content: 'changed too' }],
      ],
      3,
    );
    // Answers come as the relay finishes each message, not in order.
    expect(answers).toContainEqual(['OK', event.id, true, '']);
    expect(answers).toContainEqual(['OK', forged.id, false, 'invalid: signature is wrong']);
    // The event with the stored event's id but other content is a duplicate: the stored one stays.
    expect(await queryRelay(relay.url, { ids: [event.id] })).toEqual([plain(event)]);
    expect(await queryRelay(relay.url, { ids: [forged.id] })).toEqual([]);
  });

  it('passes an ephemeral event to a subscriber without storing it', async () => {
    const ephemeral = finalizeEvent({ kind: 24133, created_at: now(), tags: [], content: 'x' }, key);
    const subscriber = new WebSocket(relay.url);
    const received = new Promise<unknown[]>((resolve) => {
      subscriber.onmessage = (message) => {
        const data = JSON.parse(String(message.data)) as unknown[];
        if (data[0] === 'EOSE') void exchange(relay.url, [['EVENT', ephemeral]], 1);
        if (data[0] === 'EVENT') resolve(data);
      };
    });
    subscriber.onopen = () => subscriber.send(JSON.stringify(['REQ', 'live', { kinds: [24133] }]));
    expect(await received).toEqual(['EVENT', 'live', plain(ephemeral)]);
    subscriber.close();
    expect(await queryRelay(relay.url, { ids: [ephemeral.id] })).toEqual([]);
  });

  it('a refusing relay answers OK false with its reason and stores nothing', async () => {
    const event = finalizeEvent({ kind: 1063, created_at: now(), tags: [], content: '' }, key);
    const [answer] = await exchange(refusing.url, [['EVENT', event]], 1);
    expect(answer).toEqual(['OK', event.id, false, 'blocked: not on the allow list']);
    expect(await queryRelay(refusing.url, { ids: [event.id] })).toEqual([]);
  });

  it('keeps only the newest replaceable event (a kind 0 profile)', async () => {
    const older = finalizeEvent(
      { kind: 0, created_at: now() - 10, tags: [], content: '{"name":"old"}' },
      key,
    );
    const newer = finalizeEvent({ kind: 0, created_at: now(), tags: [], content: '{"name":"new"}' }, key);
    await exchange(
      relay.url,
      [
        ['EVENT', newer],
        ['EVENT', older],
      ],
      2,
    );
    expect(await queryRelay(relay.url, { kinds: [0], authors: [newer.pubkey] })).toEqual([plain(newer)]);
  });
});
