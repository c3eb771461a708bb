/**
 * The site-wide verify page (`verify/index.html`, see `renderLookupPage`): find the event its URL names
 * (`#nevent1…`, `#note1…` or `#{id}`), first as `verify/{id}.json` on the site, then — when the site has
 * none — on the `nevent`'s relay hints. Relays are not trusted: only an event with exactly that id, whose
 * id matches its content and whose signature is valid, counts.
 */
import { decode, npubEncode } from 'nostr-tools/nip19';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { isEventShape } from '../../nostr/event-shape.js';
import { describeRelayMiss, fetchEventFromRelays } from '../../nostr/relay-query-portable.js';
import { pickRelays } from './browser-relays.js';

/** An event found for the lookup page, where it came from, and the page it covers. */
export interface LookedUp {
  event: NostrEvent;
  /** `verify/{id}.json` or the relay URL. */
  from: string;
  /** The page to fetch, relative to `verify/`. */
  pagePath: string;
  /** The relay hints of the URL's `nevent` (for the signer's profile). */
  relays: string[];
}

/** Why the lookup page cannot check anything: shown as the verdict. */
export class LookupFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function readTarget(): { id: string; relays: string[] } {
  const raw = decodeURIComponent(location.hash.replace(/^#/, '') || location.search.replace(/^\?/, ''))
    .trim()
    .replace(/^nostr:/i, '');
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return { id: raw.toLowerCase(), relays: [] };
  try {
    const decoded = decode(raw);
    if (decoded.type === 'nevent')
      return { id: decoded.data.id, relays: pickRelays(decoded.data.relays ?? []) };
    if (decoded.type === 'note') return { id: decoded.data, relays: [] };
  } catch {}
  throw new LookupFailure(
    'no-event',
    raw
      ? `Not verifiable: \`${raw.slice(0, 80)}\` names no Nostr event (expected nevent1…, note1… or a 64-hex id after #).`
      : 'No event to check: open this page with the event after #, e.g. verify/#nevent1….',
  );
}

async function readFromSite(id: string): Promise<unknown> {
  try {
    const response = await fetch(`${id}.json`, { cache: 'no-store', credentials: 'same-origin' });
    if (!response.ok) return undefined;
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

/** The page path relative to `verify/`, when the event's `url` is under the site. */
function pagePathOf(event: NostrEvent, site: string): string {
  const url = event.tags.find((tag) => tag[0] === 'url')?.[1] ?? '';
  if (!site || !url.startsWith(site))
    throw new LookupFailure(
      'other-site',
      `Not checked here: the event covers \`${url}\`, a page outside this site (\`${site}\`).`,
    );
  return `../${url.slice(site.length)}`;
}

/** Find the event the URL names; fill in the facts. */
export async function lookUpEvent(status: HTMLElement): Promise<LookedUp> {
  const { id, relays } = readTarget();
  const copy = await readFromSite(id);
  let from = `verify/${id}.json`;
  if (copy !== undefined && !isEventShape(copy))
    throw new LookupFailure('malformed', `verify/${id}.json is not a signed Nostr event`);
  let event = copy;
  if (event && event.id !== id)
    throw new LookupFailure('event-id', `verify/${id}.json holds another event (\`${event.id}\`)`);
  if (!event) {
    status.textContent = `Asking ${relays.length} relay${relays.length === 1 ? '' : 's'} for the event…`;
    const accept = (candidate: NostrEvent) =>
      getEventHash(candidate) === candidate.id && verifyEvent(candidate);
    const found = await fetchEventFromRelays(id, relays, { accept });
    if (!found.event)
      throw new LookupFailure(
        'not-found',
        `the event could not be found: the site has no verify/${id}.json and the ${describeRelayMiss(found.answers)}`,
      );
    event = found.event;
    from = found.relay;
  }
  const pagePath = pagePathOf(event, status.dataset.site ?? '');
  const set = (name: string, text: string) => {
    const element = document.getElementById(`siegel-fact-${name}`);
    if (element) element.textContent = text;
  };
  const url = event.tags.find((tag) => tag[0] === 'url')?.[1] ?? '';
  set('page', url);
  document.getElementById('siegel-fact-page')?.setAttribute('href', pagePath);
  set('signer', npubEncode(event.pubkey));
  set(
    'time',
    new Date(event.created_at * 1000)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC'),
  );
  set('event', event.id);
  set('source', from);
  status.dataset.source = from;
  const facts = document.getElementById('siegel-facts');
  if (facts) facts.hidden = false;
  return { event, from, pagePath, relays };
}
