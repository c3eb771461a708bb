// The relay side of the manifest gathering (manifest-evidence.ts): per manifest address, one lookup on the
// verifier's own relays — raced, then lingered, where the verifier says so — followed by the key's NIP-65
// write relays they hold; and per page hint, one query that stops with that race. Each lookup runs once per
// gathering, however many pages (or an early start, `lookAhead`) ask for it. Pure: the I/O is the caller's.
import type { NostrEvent } from 'nostr-tools/core';
import { NSITE_NAMED_KIND, newestManifest, parseManifestAddress } from '../manifest/site-manifest.js';
import type { RelayAnswer } from '../nostr/relay-query-portable.js';
import { pickRelayHints } from '../nostr/relays.js';

/** NIP-65 relays of the key read per site, at most (as the page's hints: a silent one costs its timeout). */
const MAX_NIP65_RELAYS = 5;

/** The relays a gathering asks, and how. */
export interface ManifestLookupIo {
  /** The verifier's own relays (`--relay`, `SIEGEL_RELAYS`; the verify page's default list). */
  relays: string[];
  /** Which relays named by a page or a key's list may be asked (`allowRelayHintsFrom`). */
  hintAllowed: (relay: string) => boolean;
  /**
   * One `REQ` until `EOSE` (or `signal`), only events that count (id and signature checked); never throws.
   */
  ask(relay: string, filter: Record<string, unknown>, signal?: AbortSignal): Promise<RelayAnswer>;
  /**
   * Race, then linger (NIP-5A's gateway advice): once one of the verifier's relays has answered, the
   * others still asking get this many ms more, then are stopped — the verify page's reader does not wait on
   * relays that cannot be reached. Default: every relay is waited for (`siegel verify`).
   */
  lingerMs?: number;
}

/** One relay lookup's result for one manifest address. */
export interface Lookup {
  /** Each manifest event found. */
  found: NostrEvent[];
  answered: string[];
  failed: RelayAnswer[];
}

type ManifestAddress = NonNullable<ReturnType<typeof parseManifestAddress>>;

/** The filter of a manifest address's events. */
const filterFor = (address: ManifestAddress) => ({
  kinds: [address.kind],
  authors: [address.pubkey],
  ...(address.kind === NSITE_NAMED_KIND ? { '#d': [address.d ?? ''] } : {}),
});

/**
 * The relay lookups of one gathering.
 *
 * @example
 * ```ts
 * const lookups = createManifestLookups({ relays, hintAllowed, ask, lingerMs: 200 });
 * const { found, answered } = await lookups.lookUp(a, parseManifestAddress(a));
 * ```
 */
export function createManifestLookups(io: ManifestLookupIo) {
  const lookups = new Map<string, Promise<Lookup>>();
  /** Per manifest address, the race its verifier's relays run; the page's hints stop with it. */
  const races = new Map<string, ReturnType<typeof race>>();
  const hintLookups = new Map<string, Promise<RelayAnswer>>();
  /** One race of {@link ManifestLookupIo.lingerMs}: `answered` starts the linger, then `signal` stops the rest. */
  const race = () => {
    const controller = new AbortController();
    let started = false;
    const answered = (answer: RelayAnswer) => {
      if (answer.error === undefined && !started && io.lingerMs !== undefined) {
        started = true;
        setTimeout(() => controller.abort(), io.lingerMs);
      }
      return answer;
    };
    return { signal: controller.signal, answered };
  };

  /** The verifier's relays, then the key's NIP-65 write relays they hold. */
  const lookUp = (a: string, address: ManifestAddress): Promise<Lookup> => {
    let found = lookups.get(a);
    if (!found) {
      const first = race();
      races.set(a, first);
      found = (async () => {
        const result: Lookup = { found: [], answered: [], failed: [] };
        const collect = (answers: RelayAnswer[]) => {
          for (const answer of answers) {
            if (answer.error !== undefined && answer.events.length === 0) result.failed.push(answer);
            else result.answered.push(answer.relay);
            result.found.push(...answer.events);
          }
        };
        const ask = (filter: Record<string, unknown>) => (relay: string) =>
          io.ask(relay, filter, first.signal).then(first.answered);
        const [answers, lists] = await Promise.all([
          Promise.all(io.relays.map(ask(filterFor(address)))),
          Promise.all(io.relays.map(ask({ kinds: [10002], authors: [address.pubkey] }))),
        ]);
        collect(answers);
        const list = newestManifest(lists.flatMap((answer) => answer.events));
        const written = (list?.tags ?? [])
          .filter((tag) => tag[0] === 'r' && typeof tag[1] === 'string' && (tag[2] ?? 'write') === 'write')
          .map((tag) => tag[1] as string);
        const more = pickRelayHints(written, io.hintAllowed)
          .filter((relay) => !io.relays.includes(relay))
          .slice(0, MAX_NIP65_RELAYS);
        const second = race();
        collect(
          await Promise.all(
            more.map((relay) => io.ask(relay, filterFor(address), second.signal).then(second.answered)),
          ),
        );
        return result;
      })();
      lookups.set(a, found);
    }
    return found;
  };

  return {
    lookUp,
    /** One page hint's answer for the address, asked once; it stops with the address's race. */
    askHint(a: string, address: ManifestAddress, relay: string): Promise<RelayAnswer> {
      const key = `${a} ${relay}`;
      let answer = hintLookups.get(key);
      if (!answer) {
        answer = io.ask(relay, filterFor(address), races.get(a)?.signal);
        hintLookups.set(key, answer);
      }
      return answer;
    },
    /**
     * Start the lookup of the manifest address `a` before the page's event has been read (a verifier that
     * expects it: the address its last page of the same site named). A wrong guess costs its queries only.
     */
    lookAhead(a: string): void {
      const address = parseManifestAddress(a);
      if (address) void lookUp(a, address);
    },
  };
}
