// Strangers on a relay flooding a bunker's NIP-46 keys (issue 22, H1): used by
// test/nostr/bunker-flood.test.ts and bench/nip46-flood/run.mjs (which imports this file as is: the only
// relative import is plain JS, so that Node runs it without a build).
import { loadSigningEngine } from '@siegel/core/crypto';
import type { NostrEvent } from 'nostr-tools/core';
import * as nip44 from 'nostr-tools/nip44';
import { fetchKeptAlive } from './kept-alive-fetch.mjs';

/** A flood ready to send, and the pubkeys of its authors. */
export interface StrangerFlood {
  events: NostrEvent[];
  authors: string[];
}

/**
 * `count` kind-24133 requests from `authors` fresh keys, spread over `targets` (remote-signer pubkeys),
 * each properly signed and NIP-44 encrypted to its target: half `ping`, half `connect` with a wrong secret
 * — what a stranger who read the pubkey on a relay can send. Signed with the bunker's WebAssembly engine
 * (a few seconds for 3 000).
 */
export async function makeStrangerFlood(options: {
  targets: readonly string[];
  count: number;
  authors: number;
}): Promise<StrangerFlood> {
  const engine = await loadSigningEngine();
  const keys = Array.from({ length: options.authors }, () => engine.generateSecretKey());
  const authors = keys.map((key) => engine.getPublicKey(key));
  const conversations = new Map<string, Uint8Array>();
  const now = Math.floor(Date.now() / 1000);
  const events: NostrEvent[] = [];
  for (let i = 0; i < options.count; i++) {
    const a = i % keys.length;
    const target = options.targets[i % options.targets.length] as string;
    const id = `${a}:${target}`;
    let conversation = conversations.get(id);
    if (!conversation) {
      conversation = nip44.getConversationKey(keys[a] as Uint8Array, target);
      conversations.set(id, conversation);
    }
    const request =
      i % 2 === 0
        ? { id: `flood-${i}`, method: 'ping', params: [] }
        : { id: `flood-${i}`, method: 'connect', params: [target, `wrong-secret-${i}`] };
    events.push(
      engine.signEvent(
        {
          kind: 24133,
          created_at: now,
          tags: [['p', target]],
          content: nip44.encrypt(JSON.stringify(request), conversation),
        },
        keys[a] as Uint8Array,
      ),
    );
  }
  return { events, authors };
}

/**
 * Events sent and not yet taken by the relay, at most. A relay on a loaded machine takes fewer than 250 a
 * second; a flood sent at that rate regardless piled up in front of it, and a genuine client's request,
 * queued behind hundreds of strangers' on the relay's way to the bunker, waited there past its 15 s (seen at
 * load 22: the bunker had received 609 events and not yet the new client's `connect`). The flood is then as
 * fast as the relay, which is what a stranger on a real relay gets too.
 */
export const MAX_UNACKNOWLEDGED = 100;

/**
 * Publish `events` to a relay over `sockets` WebSockets at about `perSecond`, never more than
 * {@link MAX_UNACKNOWLEDGED} ahead of the relay's `OK`s, and wait for the relay's `OK` to each (up to 60 s).
 * Resolves with when sending started and ended (ms, `performance.now()`).
 */
export async function sendFlood(
  url: string,
  events: readonly NostrEvent[],
  options: { perSecond: number; sockets?: number },
): Promise<{ started: number; sent: number; acknowledged: number }> {
  const sockets = await Promise.all(
    Array.from(
      { length: options.sockets ?? 4 },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve(socket);
          socket.onerror = () => reject(new Error(`cannot reach ${url}`));
        }),
    ),
  );
  let acknowledged = 0;
  /** Resolves the sending loop's wait for the relay to catch up, at each `OK`. */
  let caughtUp: (() => void) | undefined;
  const allAcknowledged = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${acknowledged} of ${events.length} OKs in 60 s`)),
      60_000,
    );
    for (const socket of sockets) {
      socket.onmessage = (message) => {
        if (!String(message.data).startsWith('["OK"')) return;
        caughtUp?.();
        if (++acknowledged === events.length) {
          clearTimeout(timer);
          resolve();
        }
      };
    }
  });
  const started = performance.now();
  const slice = Math.max(1, Math.round(options.perSecond / 20));
  for (let i = 0; i < events.length; i += slice) {
    while (i - acknowledged > MAX_UNACKNOWLEDGED) {
      await Promise.race([new Promise<void>((resolve) => (caughtUp = resolve)), allAcknowledged]);
    }
    for (const [j, event] of events.slice(i, i + slice).entries()) {
      sockets[(i + j) % sockets.length]?.send(JSON.stringify(['EVENT', event]));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const sent = performance.now();
  await allAcknowledged;
  for (const socket of sockets) socket.close();
  return { started, sent, acknowledged: performance.now() };
}

/**
 * Count every kind-24133 event on the relay p-tagged to one of `pubkeys` (a reply to a stranger), checked
 * here, whatever filters the relay honours.
 */
export function watchReplies(url: string, pubkeys: readonly string[]): { count(): number; close(): void } {
  const strangers = new Set(pubkeys);
  let count = 0;
  const socket = new WebSocket(url);
  socket.onopen = () => socket.send(JSON.stringify(['REQ', 'replies', { kinds: [24133], '#p': pubkeys }]));
  socket.onmessage = (message) => {
    const data = JSON.parse(String(message.data)) as [string, string, NostrEvent];
    if (data[0] !== 'EVENT') return;
    if (data[2].tags.some((tag) => tag[0] === 'p' && strangers.has(tag[1] as string))) count++;
  };
  return { count: () => count, close: () => socket.close() };
}

/**
 * `GET path` with a Bearer token every `everyMs` until `stop()`; resolves with every latency (ms). A probe
 * waits for the previous one, so a stalled server shows as one long latency, not many.
 */
export function probeHttp(url: string, token: string, everyMs = 50): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const start = performance.now();
      // The probe's connection is the bunker's to close when idle (a late probe on a loaded machine).
      const res = await fetchKeptAlive(url, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`probe ${url}: ${res.status}`);
      latencies.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    return latencies;
  })();
  // Failing early (the server gone) is reported by `stop()`, not as an unhandled rejection.
  done.catch(() => {});
  return {
    stop() {
      stopped = true;
      return done;
    },
  };
}

/**
 * Publish `event` (a kind-24133 request to `target`) to the relay and wait up to `ms` for a kind-24133 event
 * from `target` to its author: whether the bunker answered at all.
 */
export async function answered(url: string, event: NostrEvent, target: string, ms = 4000): Promise<boolean> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`cannot reach ${url}`));
  });
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      socket.onmessage = (message) => {
        const data = JSON.parse(String(message.data)) as unknown[];
        if (data[0] === 'EOSE' && data[1] === 'reply') socket.send(JSON.stringify(['EVENT', event]));
        if (data[0] === 'EVENT' && data[1] === 'reply') {
          const reply = data[2] as NostrEvent;
          if (reply.pubkey === target && reply.tags.some((t) => t[0] === 'p' && t[1] === event.pubkey)) {
            clearTimeout(timer);
            resolve(true);
          }
        }
      };
      const filter = { kinds: [24133], authors: [target], '#p': [event.pubkey], since: event.created_at - 5 };
      socket.send(JSON.stringify(['REQ', 'reply', filter]));
    });
  } finally {
    socket.close();
  }
}

/** A kind-24133 request from `secret` to `target`, NIP-44 encrypted (for {@link answered}). */
export async function nip46Request(
  secret: Uint8Array,
  target: string,
  request: { id: string; method: string; params: unknown[] },
  createdAt = Math.floor(Date.now() / 1000),
): Promise<NostrEvent> {
  const engine = await loadSigningEngine();
  const content = nip44.encrypt(JSON.stringify(request), nip44.getConversationKey(secret, target));
  return engine.signEvent({ kind: 24133, created_at: createdAt, tags: [['p', target]], content }, secret);
}
