// Issue 10: "the bunker answers 500 for an event over about 1 MB (its body limit is 8 MiB)". The cause:
// the WebAssembly engine (nostr-wasm) hashes an event's serialisation inside a fixed heap of about 1 MiB
// and throws "Out of memory" past ~945 000 bytes. The bunker now refuses an event whose NIP-01
// serialisation is over MAX_EVENT_BYTES with 413 `event_too_large`, and signs everything up to it.
import { MAX_EVENT_BYTES } from '@siegel/bunker';
import type { Event } from 'nostr-tools';
import { verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callBunker, type RunningBunker, startBunker } from '../support/bunker-process.js';

let bunker: RunningBunker;

beforeAll(async () => {
  bunker = await startBunker();
});

afterAll(async () => {
  await bunker?.stop();
});

const sign = (body: unknown) =>
  callBunker(bunker.url, 'POST', '/api/keys/default/sign', { token: bunker.apiToken, body });

/** The UTF-8 length of an event's NIP-01 serialisation `[0,pubkey,created_at,kind,tags,content]`. */
function serializedBytes(event: { created_at: number; kind: number; tags: string[][]; content: string }) {
  const pubkey = '0'.repeat(64);
  return Buffer.byteLength(
    JSON.stringify([0, pubkey, event.created_at, event.kind, event.tags, event.content]),
    'utf8',
  );
}

/** A template whose serialisation is exactly `bytes` long. */
function templateOf(bytes: number, tags: string[][] = []) {
  const empty = { kind: 1063, created_at: 1_700_000_000, tags, content: '' };
  return { ...empty, content: 'x'.repeat(bytes - serializedBytes(empty)) };
}

async function errorOf(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return { status: res.status, ...((await res.json()) as { error: { code: string; message: string } }) };
}

describe('events too large to sign', () => {
  it('keeps the documented limit below what the WebAssembly engine can hash (~945 000 bytes)', () => {
    expect(MAX_EVENT_BYTES).toBe(768 * 1024);
  });

  it('signs an event of exactly MAX_EVENT_BYTES with the real engine, and it verifies', async () => {
    const template = templateOf(MAX_EVENT_BYTES, [['title', 't'.repeat(1000)]]);
    expect(serializedBytes(template)).toBe(MAX_EVENT_BYTES);
    const res = await sign({ events: [template] });
    expect(res.status).toBe(200);
    const [event] = ((await res.json()) as { events: Event[] }).events;
    expect(event?.content).toBe(template.content);
    expect(verifyEvent({ ...(event as Event) })).toBe(true);
  });

  it('answers 413 event_too_large (not 500) for the issue’s events of 1 and 2 MB, naming the event', async () => {
    for (const bytes of [1_000_000, 2 * 1024 * 1024]) {
      const res = await sign({ events: [templateOf(1000), templateOf(bytes)] });
      const error = await errorOf(res);
      expect(error.status).toBe(413);
      expect(error.error.code).toBe('event_too_large');
      expect(error.error.message).toContain('`events[1]`');
      expect(error.error.message).toContain(String(bytes));
      expect(error.error.message).toContain(String(MAX_EVENT_BYTES));
    }
  });

  it('answers 413 one byte over the limit, counting UTF-8 bytes (not characters) and tags', async () => {
    expect((await errorOf(await sign({ events: [templateOf(MAX_EVENT_BYTES + 1)] }))).status).toBe(413);
    // 'é' is two bytes: this content is under the limit in characters, over it in bytes.
    const wide = { kind: 1, created_at: 1, tags: [], content: 'é'.repeat(MAX_EVENT_BYTES / 2) };
    expect(wide.content.length).toBeLessThan(MAX_EVENT_BYTES);
    expect((await errorOf(await sign({ events: [wide] }))).error.code).toBe('event_too_large');
    const manyTags = {
      kind: 1,
      created_at: 1,
      tags: Array.from({ length: 100_000 }, () => ['t', 'tag']),
      content: '',
    };
    expect((await errorOf(await sign({ events: [manyTags] }))).error.code).toBe('event_too_large');
  });

  it('answers 413 on the compatibility route too, in its own shape', async () => {
    const res = await callBunker(bunker.url, 'POST', '/api/sign', {
      token: bunker.apiToken,
      body: { event: templateOf(1_500_000) },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'event_too_large', message: expect.stringContaining('`event`') },
    });
  });

  it('still signs normal events afterwards', async () => {
    const res = await sign({ events: [templateOf(2000)] });
    expect(res.status).toBe(200);
  });
});
