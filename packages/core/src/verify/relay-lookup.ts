// How `verifySite` asks relays for an event a site lacks: the block's `nevent` hints the source allows and
// the verifier's own relays, each answer's id and signature checked, a relay that could not be reached not
// asked again in the same check.
import type { NostrEvent } from 'nostr-tools/core';
import type { ConnectPolicy } from '../net/connect-policy.js';
import { computeEventId, type SigningEngine } from '../nostr/crypto.js';
import { describeRelayMiss, fetchEventFromRelays, RELAY_QUERY_DEFAULTS } from '../nostr/relay-query.js';
import { pickRelayHints } from '../nostr/relays.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import type { LoadedEvent } from './site-source.js';

/** The event's id recomputed, or `undefined` when it is not shaped to have one. */
export function safeEventHash(event: NostrEvent): string | undefined {
  try {
    return computeEventId(event);
  } catch {
    return undefined;
  }
}

/**
 * Whether an event holds: its id is the hash of its content and its signature is the key's. The one test of
 * an event read from a relay or a site, for the event lookup, the manifest gathering and a signer's profile.
 */
export function soundEvents(crypto: SigningEngine): (event: NostrEvent) => boolean {
  return (event) => safeEventHash(event) === event.id && verifyEventSignature(crypto, event);
}

/**
 * Looks an event up on relays: the block's `nevent` hints (at most 5 valid ones the source allows, by
 * `pickRelayHints`) and the `--relay` ones. Only an event with the asked id, a matching id hash and a valid
 * signature counts; the page's own checks (x tag, pubkey, spec) follow as for a local event. A relay that
 * could not be reached is not asked again in this check.
 * @throws {Error} `event not found on relays …`, naming each relay and what it said.
 */
export function lookupOnRelays(
  crypto: SigningEngine,
  extra: string[],
  hintAllowed: (relay: string) => boolean,
  options: { timeoutMs?: number | undefined; policy?: ConnectPolicy | undefined },
): (id: string, hints: string[]) => Promise<LoadedEvent> {
  const timeoutMs = options.timeoutMs ?? RELAY_QUERY_DEFAULTS.timeoutMs;
  const unreachable = new Map<string, string>();
  const accept = soundEvents(crypto);
  return async (id, hints) => {
    const relays = pickRelayHints(hints, hintAllowed);
    for (const relay of extra) if (!relays.includes(relay)) relays.push(relay);
    if (relays.length === 0)
      throw new Error(
        hints.length === 0
          ? "event not found: no relay to ask (the block's nevent names none; add `--relay`)"
          : "event not found: no relay to ask (the block's nevent names none that may be asked: a hint read from a page must be a wss:// relay on a public host; add `--relay`)",
      );
    const found = await fetchEventFromRelays(
      id,
      relays.filter((relay) => !unreachable.has(relay)),
      { accept, timeoutMs, ...(options.policy ? { policy: options.policy } : {}) },
    );
    if (found.event) return { event: found.event, from: found.relay };
    for (const answer of found.answers)
      if (answer.error && answer.events.length === 0) unreachable.set(answer.relay, answer.error);
    const skipped = relays
      .filter((relay) => unreachable.has(relay) && !found.answers.some((a) => a.relay === relay))
      .map((relay) => ({ relay, events: [], rejected: 0, error: unreachable.get(relay) as string }));
    throw new Error(describeRelayMiss([...found.answers, ...skipped]));
  };
}
