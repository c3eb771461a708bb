/**
 * The event a page's block names: first the site's own copy, `verify/{id}.json` beside the verify page the
 * block links (on the page's own origin, whatever host the link names, as `siegel verify <url>`), then the
 * relays — the block's `nevent` hints by core's address rules (at most `MAX_RELAY_HINTS`, no local or
 * private host unless the page is on one) and the reader's own list. Relays are not trusted: only an event
 * with exactly that id, whose id matches its content and whose signature is valid, counts.
 */
import {
  allowRelayHintsFrom,
  fetchEventFromRelays,
  pickRelayHints,
  RELAY_CONNECT_MS,
  RELAY_TIMEOUT_MS,
  type RelayPool,
} from '@siegel/core/browser';
import type { EvidenceRecorder } from '@siegel/core/evidence';
import type { EventEvidence } from '@siegel/core/rules';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { fetchBounded, MAX_EVENT_BYTES } from './read-bounded.js';

/** The event found (or why not), the relays asked and what each answered, and the site copy's URL. */
export interface FoundEvent {
  evidence: EventEvidence;
  /** The event as found (for the evidence file), when one was. */
  event?: unknown;
  relays: Array<{ relay: string; answer: string }>;
  /** Relays the page names that may be asked (for the manifest and the NIP-05 profile). */
  hints: string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Where `verify/{id}.json` is: the block's link's path on the page's origin, else the origin's `/verify/`. */
export function eventFileUrl(id: string, verifyUrl: string | undefined, page: URL): URL {
  let path = `/verify/${id}`;
  try {
    const linked = new URL(verifyUrl ?? '', page).pathname.replace(/\/+$/, '');
    if (linked.endsWith(`/verify/${id}`)) path = linked;
  } catch {}
  return new URL(`${path}.json`, page.origin);
}

/**
 * Find the event `id` for the page at `page`.
 *
 * @example
 * ```ts
 * const found = await findEvent(block.eventId, block, new URL(tabUrl), ['wss://relay.example']);
 * ```
 */
export async function findEvent(
  id: string,
  block: { verifyUrl?: string; relays?: string[] },
  page: URL,
  ownRelays: readonly string[],
  recorder?: EvidenceRecorder,
  pool?: RelayPool,
): Promise<FoundEvent> {
  const file = eventFileUrl(id, block.verifyUrl, page);
  const hints = pickRelayHints(block.relays ?? [], allowRelayHintsFrom(page.hostname));
  const relays: FoundEvent['relays'] = [];
  if (HEX64.test(id)) {
    try {
      const response = await fetchBounded(file.href, MAX_EVENT_BYTES);
      if (response.status >= 200 && response.status < 300) {
        try {
          const event = JSON.parse(new TextDecoder().decode(response.bytes)) as unknown;
          return { evidence: { found: event, from: file.href }, event, relays, hints };
        } catch (error) {
          const malformed = `\`${file.href}\` is not JSON: ${(error as Error).message}`;
          return { evidence: { malformed }, relays, hints };
        }
      }
    } catch {}
  }
  const asked = [...new Set([...hints, ...ownRelays])];
  const accept = (event: NostrEvent) => getEventHash(event) === event.id && verifyEvent(event);
  const found = await fetchEventFromRelays(id, asked, {
    accept,
    timeoutMs: RELAY_TIMEOUT_MS,
    connectTimeoutMs: RELAY_CONNECT_MS,
    ...(pool ? { pool } : {}),
  });
  const filter = { ids: [id], limit: 1 };
  if (found.event) {
    recorder?.addAnswer('event', filter, { relay: found.relay, events: [found.event], rejected: 0 });
    relays.push({ relay: found.relay, answer: 'had the event' });
    return {
      evidence: { found: found.event, from: found.relay },
      event: found.event,
      relays,
      hints,
    };
  }
  for (const answer of found.answers) {
    recorder?.addAnswer('event', filter, answer);
    relays.push({ relay: answer.relay, answer: answer.error ?? 'not there' });
  }
  const where = asked.length === 0 ? 'no relay to ask' : asked.map((relay) => `\`${relay}\``).join(', ');
  return {
    evidence: { missing: `the event could not be found: not at \`${file.href}\`, nor on ${where}` },
    relays,
    hints,
  };
}
