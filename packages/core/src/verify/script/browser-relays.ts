import { isLoopbackHost } from '../../net/address-policy.js';

/**
 * Relays the browser may ask, from a `nevent`'s hints (which the page or the URL supplies): `wss://`, or
 * `ws://` on a loopback host (a local relay), as `parseRelays` allows in Node; at most 5, the rest ignored.
 */
export function pickRelays(hints: readonly string[]): string[] {
  const relays: string[] = [];
  for (const hint of hints) {
    let url: URL;
    try {
      url = new URL(hint);
    } catch {
      continue;
    }
    if (
      url.username ||
      url.password ||
      !(url.protocol === 'wss:' || (url.protocol === 'ws:' && isLoopbackHost(url.hostname)))
    )
      continue;
    if (!relays.includes(hint)) relays.push(hint);
  }
  return relays.slice(0, 5);
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
