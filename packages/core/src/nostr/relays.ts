import { SiegelError } from '../errors.js';
import { isLocalHost, isLoopbackHost } from '../net/address-policy.js';

/**
 * What relays commonly accept: strfry's defaults (`maxEventSize`, `maxNumTags`, `maxTagValSize`). The site
 * manifest is laid out for them (manifest/manifest-layout.ts) and the test relay enforces them.
 */
export const RELAY_LIMITS = { maxEventBytes: 65_536, maxTags: 2_000, maxTagValueBytes: 1_024 } as const;

/**
 * Validate relay URLs (the block's `nevent` hints, and where events are published and looked up): each
 * must be an absolute `wss://` URL, or `ws://` on a loopback host (a local or test relay: nothing leaves
 * the machine in cleartext); no user info. Trims them, skips blanks and drops duplicates, keeping the order
 * and the spelling.
 *
 * @example
 * ```ts
 * parseRelays(['wss://relay.example.com', 'wss://nos.lol/']) // ['wss://relay.example.com', 'wss://nos.lol/']
 * parseRelays(['ws://127.0.0.1:7000'])        // ['ws://127.0.0.1:7000']
 * parseRelays(['https://relay.example.com']) // throws: Relay `https://relay.example.com` must be a wss:// URL
 * ```
 * @throws {SiegelError} `invalid_options` naming the bad value in backticks (and where it came from).
 */
export function parseRelays(values: readonly string[], source = 'relays'): string[] {
  const relays: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (!value) continue;
    const problem = relayUrlProblem(value);
    if (problem === 'not a URL')
      throw new SiegelError('invalid_options', `Relay \`${value}\` (${source}) is not a URL`);
    if (problem === 'longer than 255 bytes') requireRelayHintSize(value, source);
    if (problem !== undefined) {
      const also = problem === 'ws' ? ' (ws:// only on a loopback host)' : '';
      throw new SiegelError('invalid_options', `Relay \`${value}\` (${source}) must be a wss:// URL${also}`);
    }
    if (!relays.includes(value)) relays.push(value);
  }
  return relays;
}

/** Why `value` is not a relay URL Siegel connects to, or undefined when it is one (see {@link parseRelays}). */
function relayUrlProblem(value: string): 'not a URL' | 'ws' | 'scheme' | 'longer than 255 bytes' | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  const loopbackWs = url.protocol === 'ws:' && isLoopbackHost(url.hostname);
  if ((url.protocol !== 'wss:' && !loopbackWs) || !url.hostname || url.username || url.password)
    return url.protocol === 'ws:' ? 'ws' : 'scheme';
  if (byteLength(value) > 255) return 'longer than 255 bytes';
  return undefined;
}

/**
 * Relay hints read from a `nevent` asked per event, at most: a page (or a link) may name a hundred relays,
 * and a silent one costs its whole timeout. The Node verifier and the browser verify script share it.
 */
export const MAX_RELAY_HINTS = 5;

/**
 * The relays to ask of a `nevent`'s `hints`, which a page or a link supplies and which may be hostile:
 * valid relay URLs only (as {@link parseRelays} takes them; the rest are skipped, not errors), those
 * `allowed` takes, no duplicates, at most {@link MAX_RELAY_HINTS} — the first ones, in the page's order.
 * Relays the user names (`--relay`) are not hints: they are added by the caller, uncapped.
 *
 * @example
 * ```ts
 * pickRelayHints(decoded.relays, allowRelayHintsFrom(undefined)) // at most 5 public wss:// relays
 * ```
 */
export function pickRelayHints(
  hints: readonly string[],
  allowed: (relay: string) => boolean = () => true,
): string[] {
  const relays: string[] = [];
  for (const raw of hints) {
    if (relays.length === MAX_RELAY_HINTS) break;
    const hint = typeof raw === 'string' ? raw.trim() : '';
    if (!hint || relayUrlProblem(hint) !== undefined || relays.includes(hint) || !allowed(hint)) continue;
    relays.push(hint);
  }
  return relays;
}

/**
 * Which relay hints from page content may be asked, for a page read at `pageHost` (undefined: from a
 * directory, where nothing says where the pages came from). Hints naming `localhost`, a loopback, private
 * or link-local address are not asked — a page must not make the check probe the reader's own machine or
 * network — unless the page itself was served from such a host (a local preview, whose relay is local too).
 *
 * @example
 * ```ts
 * allowRelayHintsFrom(undefined)('ws://127.0.0.1:7000')   // false: a directory's page names it
 * allowRelayHintsFrom('127.0.0.1')('ws://127.0.0.1:7000') // true: a local preview
 * ```
 */
export function allowRelayHintsFrom(pageHost: string | undefined): (relay: string) => boolean {
  if (pageHost !== undefined && isLocalHost(pageHost)) return () => true;
  return (relay) => !isLocalHost(new URL(relay).hostname);
}

/** `SIEGEL_RELAYS`: comma-separated relay URLs as {@link parseRelays} takes them (blank: none). */
export function readRelaysFromEnv(value: string | undefined): string[] {
  return value?.trim() ? parseRelays(value.split(','), 'SIEGEL_RELAYS') : [];
}

/**
 * Refuse a relay URL that cannot be a NIP-19 relay hint: a TLV entry holds at most 255 bytes (nostr-tools'
 * `neventEncode` would silently write a broken `nevent` for a longer one). Checked when options are read
 * and by `encodeNevent` itself.
 * @throws {SiegelError} `invalid_options` quoting the relay.
 */
export function requireRelayHintSize(relay: string, source = 'relays'): void {
  if (byteLength(relay) > 255)
    throw new SiegelError('invalid_options', `Relay \`${relay}\` (${source}) is longer than 255 bytes`);
}

/** UTF-8 length of `text`, in Node and in the browser verify script alike. */
function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}
