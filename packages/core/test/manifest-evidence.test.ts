// The manifest gatherer's relay timing (issue 36): the verify page races the verifier's relays and lingers
// (NIP-5A's gateways: answer as soon as one relay has, 200 ms for the rest), and a relay that cannot be
// reached costs its connect budget, not the whole query's time; the site's copy and the files it names are
// read while the relays are asked (issue 37's latency). Fake relays and fake timers: no socket.
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manifestAddress, NSITE_NAMED_KIND } from '../src/manifest/site-manifest.js';
import { queryRelay, type RelayAnswer } from '../src/nostr/relay-query-portable.js';
import { createManifestEvidence } from '../src/verify/manifest-evidence.js';
import { FakeWebSocket } from './support/fake-websocket.js';

const KEY = Uint8Array.from({ length: 32 }, () => 7);
const FAST = 'wss://fast.example';
const SILENT = 'wss://silent.example';

/** A page event naming a named site of its key. */
function pageEvent() {
  const draft = finalizeEvent({ kind: 1, created_at: 1, tags: [], content: '' }, KEY);
  return finalizeEvent(
    {
      kind: 1,
      created_at: 1_700_000_000,
      tags: [['a', manifestAddress(NSITE_NAMED_KIND, draft.pubkey, 'site-abcd')]],
      content: '',
    },
    KEY,
  );
}

/** A gatherer whose FAST relay answers at once (nothing held) and whose SILENT one answers only when stopped. */
function gatherer(lingerMs: number | undefined) {
  const stopped: string[] = [];
  const gather = createManifestEvidence({
    relays: [FAST, SILENT],
    hintAllowed: () => true,
    ask: (relay, _filter, signal) =>
      relay === FAST
        ? Promise.resolve({ relay, events: [], rejected: 0 })
        : new Promise<RelayAnswer>((resolve) =>
            signal?.addEventListener('abort', () => {
              stopped.push(relay);
              resolve({ relay, events: [], rejected: 0, error: 'stopped' });
            }),
          ),
    valid: () => true,
    readSiteFile: () => Promise.reject(new Error('no site here')),
    sha256: () => '0'.repeat(64),
    chunks: false,
    ...(lingerMs === undefined ? {} : { lingerMs }),
  });
  return { gather, stopped };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the relays a verifier asks for the newest manifest', () => {
  it('with a linger: answers lingerMs after the first relay answered, the silent one stopped', async () => {
    vi.useFakeTimers();
    const { gather, stopped } = gatherer(200);
    let done = false;
    const evidence = gather(pageEvent(), [SILENT], 'https://example.com/', new Uint8Array());
    void evidence.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    // Checked on the relay that answered (no manifest there: manifest.missing is for the rule book).
    expect((await evidence)?.answered).toEqual([FAST]);
    // The silent relay stopped, for the manifest, the key's relay list and as the page's hint alike.
    expect(stopped.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stopped)).toEqual(new Set([SILENT]));
  });

  it('without one (siegel verify): every relay is waited for', async () => {
    vi.useFakeTimers();
    const { gather } = gatherer(undefined);
    let done = false;
    void gather(pageEvent(), [], 'https://example.com/', new Uint8Array()).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(done).toBe(false);
  });

  it('a relay whose connection never opens costs the connect budget, not the query’s time', async () => {
    vi.useFakeTimers();
    let answer: RelayAnswer | undefined;
    void queryRelay(
      SILENT,
      { kinds: [NSITE_NAMED_KIND] },
      {
        timeoutMs: 6_000,
        connectTimeoutMs: 2_000,
        // A WebSocket that never opens, never fails.
        websocket: () => FakeWebSocket as unknown as typeof WebSocket,
      },
    ).then((result) => {
      answer = result;
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer?.error).toBe('cannot connect within 2 s');
  });
});

describe('what the gatherer reads while the relays are asked', () => {
  it('the site’s copy where the event was found, and the files it names for the page, before any relay answers', async () => {
    const event = pageEvent();
    const pubkey = getPublicKey(KEY);
    const copy = finalizeEvent(
      {
        kind: NSITE_NAMED_KIND,
        created_at: 1_700_000_100,
        tags: [
          ['d', 'site-abcd'],
          ['url', 'https://example.com/'],
          ['path', '/index.html', 'a'.repeat(64), event.id],
          ['path', '/style.css', 'b'.repeat(64)],
          ['loads', '/index.html', '/style.css'],
        ],
        content: '',
      },
      KEY,
    );
    expect(copy.pubkey).toBe(pubkey);
    const read: string[] = [];
    let answerRelays: () => void = () => {};
    const relaysHeld = new Promise<void>((resolve) => {
      answerRelays = resolve;
    });
    const gather = createManifestEvidence({
      relays: [FAST],
      hintAllowed: () => true,
      ask: async (relay) => {
        await relaysHeld;
        return { relay, events: [], rejected: 0 };
      },
      valid: () => true,
      readSiteFile: async (path) => {
        read.push(path);
        if (path === '/verify/manifest.json') return new TextEncoder().encode(JSON.stringify(copy));
        return new TextEncoder().encode(`bytes of ${path}`);
      },
      sha256: (bytes) => new TextDecoder().decode(bytes),
      chunks: false,
    });
    const evidence = gather(event, [], 'https://example.com/', new Uint8Array(), 'https://example.com');
    // Nothing answered yet: the copy was read and the page's stylesheet is being hashed already.
    await vi.waitFor(() => expect(read).toEqual(['/verify/manifest.json', '/style.css']));
    answerRelays();
    const found = await evidence;
    expect(found?.pageNamed?.eventId).toBe(copy.id);
    // Read once each, though named twice (the early start and the gathering's end).
    expect(read).toEqual(['/verify/manifest.json', '/style.css']);
    expect(found?.assets).toEqual([{ path: '/style.css', sha256: 'bytes of /style.css' }]);
  });
});

describe('the page’s loads', () => {
  it('are the reading’s when it read them against the event’s address and the manifest’s site, else parsed', async () => {
    const pubkey = getPublicKey(KEY);
    const page = finalizeEvent(
      {
        kind: 1,
        created_at: 1_700_000_000,
        tags: [
          ['a', manifestAddress(NSITE_NAMED_KIND, pubkey, 'site-abcd')],
          ['url', 'https://example.com/a/'],
        ],
        content: '',
      },
      KEY,
    );
    const manifest = finalizeEvent(
      {
        kind: NSITE_NAMED_KIND,
        created_at: 1_700_000_100,
        tags: [
          ['d', 'site-abcd'],
          ['url', 'https://example.com/'],
          ['path', '/a/index.html', 'a'.repeat(64), page.id],
        ],
        content: '',
      },
      KEY,
    );
    const gather = createManifestEvidence({
      relays: [FAST],
      hintAllowed: () => true,
      ask: async (relay) => ({ relay, events: [manifest], rejected: 0 }),
      valid: () => true,
      readSiteFile: () => Promise.reject(new Error('no copy')),
      sha256: () => '0'.repeat(64),
      chunks: false,
    });
    const html = new TextEncoder().encode('<!doctype html><script src="/parsed.js"></script><main>x</main>');
    const known = {
      address: 'https://example.com/a/',
      siteUrl: 'https://example.com/',
      loads: ['script /read.js'],
    };
    expect((await gather(page, [], 'a/index.html', html, undefined, known))?.loads).toEqual([
      'script /read.js',
    ]);
    // Or their promise: a caller starts the gathering before it has read the page.
    expect((await gather(page, [], 'a/index.html', html, undefined, Promise.resolve(known)))?.loads).toEqual([
      'script /read.js',
    ]);
    // Read against another site URL: the page is parsed against the manifest's.
    const elsewhere = { ...known, siteUrl: 'https://mirror.example/' };
    const parsed = (await gather(page, [], 'a/index.html', html, undefined, elsewhere))?.loads;
    expect(parsed?.some((item) => item.includes('/parsed.js'))).toBe(true);
  });
});

describe('a lookup started before the page’s event is read (lookAhead)', () => {
  it('asks the relays at once, and the gathering of an event naming that address asks nothing again', async () => {
    const event = pageEvent();
    const a = event.tags[0]?.[1] ?? '';
    const asked: string[] = [];
    const gather = createManifestEvidence({
      relays: [FAST],
      hintAllowed: () => true,
      ask: async (relay, filter) => {
        asked.push(JSON.stringify(filter.kinds));
        return { relay, events: [], rejected: 0 };
      },
      valid: () => true,
      readSiteFile: () => Promise.reject(new Error('no site here')),
      sha256: () => '0'.repeat(64),
      chunks: false,
    });
    gather.lookAhead(a);
    // The manifest and the key's relay list, asked before any event was given.
    expect(asked.sort()).toEqual(['[10002]', `[${NSITE_NAMED_KIND}]`]);
    const found = await gather(event, [], 'https://example.com/', new Uint8Array());
    expect(found?.answered).toEqual([FAST]);
    expect(asked).toHaveLength(2);
    // Another address (a wrong guess, or not an address at all) leaves the event's own lookup to run.
    gather.lookAhead('not an address');
    expect(asked).toHaveLength(2);
    gather.lookAhead(`${NSITE_NAMED_KIND}:${getPublicKey(KEY)}:another-site`);
    expect(asked).toHaveLength(4);
  });
});
