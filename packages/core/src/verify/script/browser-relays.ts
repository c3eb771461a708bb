import { isLoopbackHost } from '../../net/address-policy.js';
import { allowRelayHintsFrom, pickRelayHints } from '../../nostr/relays.js';

/**
 * Relays the verify page asks for the newest site manifest whatever the page names: public relays that keep
 * replaceable events. A page cannot change this list (it is in the script, which the manifest pins).
 */
export const DEFAULT_RELAYS = ['wss://relay.damus.io', 'wss://nos.lol', 'wss://relay.primal.net'];

/**
 * Relays the browser may ask, from a `nevent`'s hints (which the page or the URL supplies): the one rule of
 * `siegel verify` (`pickRelayHints`): valid relay URLs (`wss://`, or `ws://` on a loopback host), at most
 * `MAX_RELAY_HINTS` (5), and local or private hosts only when this page is itself served from one (a local
 * preview).
 */
export function pickRelays(hints: readonly string[]): string[] {
  return pickRelayHints(hints, allowRelayHintsFrom(location.hostname));
}

/** `https://` for a NIP-05 domain, `http://` only on a loopback host (a local test server). */
export function nip05Url(domain: string, name: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(`https://${domain}/.well-known/nostr.json`);
  } catch {
    return undefined;
  }
  if (url.host !== domain.toLowerCase()) return undefined;
  if (isLoopbackHost(url.hostname)) url.protocol = 'http:';
  url.searchParams.set('name', name);
  return url;
}
