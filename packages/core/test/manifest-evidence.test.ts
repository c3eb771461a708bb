// The manifest gatherer's relay timing (issue 36): the verify page races the verifier's relays and lingers
// (NIP-5A's gateways: answer as soon as one relay has, 200 ms for the rest), and a relay that cannot be
// reached costs its connect budget, not the whole query's time. Fake relays and fake timers: no socket.
import { finalizeEvent } from 'nostr-tools/pure';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manifestAddress, NSITE_NAMED_KIND } from '../src/manifest/site-manifest.js';
import { queryRelay, type RelayAnswer } from '../src/nostr/relay-query-portable.js';
import { createManifestEvidence } from '../src/verify/manifest-evidence.js';

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
    /** A WebSocket that never opens, never fails. */
    class NeverOpens {
      static readonly CONNECTING = 0;
      static readonly OPEN = 1;
      static readonly CLOSING = 2;
      static readonly CLOSED = 3;
      readyState = 0;
      url: string;
      onopen: (() => void) | null = null;
      onclose: (() => void) | null = null;
      onerror: (() => void) | null = null;
      onmessage: (() => void) | null = null;
      constructor(url: string) {
        this.url = url;
      }
      send() {}
      close() {
        this.readyState = 3;
      }
    }
    let answer: RelayAnswer | undefined;
    void queryRelay(
      SILENT,
      { kinds: [NSITE_NAMED_KIND] },
      {
        timeoutMs: 6_000,
        connectTimeoutMs: 2_000,
        websocket: () => NeverOpens as unknown as typeof WebSocket,
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
