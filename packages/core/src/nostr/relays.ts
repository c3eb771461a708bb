import { SiegelError } from '../errors.js';
import { isLoopbackHost } from '../net/address-policy.js';

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
    let url: URL;
    try {
      url = new URL(value);
    } catch (cause) {
      throw new SiegelError('invalid_options', `Relay \`${value}\` (${source}) is not a URL`, { cause });
    }
    const loopbackWs = url.protocol === 'ws:' && isLoopbackHost(url.hostname);
    if ((url.protocol !== 'wss:' && !loopbackWs) || !url.hostname || url.username || url.password) {
      const also = url.protocol === 'ws:' ? ' (ws:// only on a loopback host)' : '';
      throw new SiegelError('invalid_options', `Relay \`${value}\` (${source}) must be a wss:// URL${also}`);
    }
    requireRelayHintSize(value, source);
    if (!relays.includes(value)) relays.push(value);
  }
  return relays;
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
  if (Buffer.byteLength(relay) > 255)
    throw new SiegelError('invalid_options', `Relay \`${relay}\` (${source}) is longer than 255 bytes`);
}
