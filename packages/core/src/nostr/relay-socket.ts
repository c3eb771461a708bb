// The WebSocket that nostr-tools' relays run on in Node: `ws` with a `maxPayload` cap. Node's own
// WebSocket (undici) takes a message of any size into memory — a relay's 64 MiB NOTICE took the CLI to
// 421 MB — while `ws` reads a frame's length from its header and, past the cap, closes the connection with
// 1009 (message too big) before it buffers a byte of the payload (compressed messages too: the cap counts
// the inflated size); the socket is then dropped, so the rest is not even read. This is the one module of core that imports `ws`: the browser verify script reaches
// relays through relay-query-portable.ts on the browser's WebSocket and never bundles this file.
import WebSocket from 'ws';
import { type ConnectPolicy, policyLookup, refuseLiteral } from '../net/connect-policy.js';
import { formatByteSize } from '../text/byte-size.js';

/**
 * Largest message taken from a relay, in bytes: 2 MiB. An event Siegel reads or publishes is at most
 * about 1 MiB (a page event; `siegel verify` reads no larger event file), JSON-escaped inside `["EVENT",…]`.
 */
export const MAX_RELAY_MESSAGE_BYTES = 2 * 1024 * 1024;

/**
 * Largest message taken from a NIP-46 relay, in bytes: 512 KiB — by the NIP-46 client (`Nip46Signer`) and
 * the bunker's remote signer alike. A request or a reply holds one NIP-44 payload, whose plaintext NIP-44
 * caps at 64 KiB (~87 KiB of base64); a larger message is neither.
 */
export const MAX_NIP46_MESSAGE_BYTES = 512 * 1024;

/** What {@link createRelaySocket} makes: a WebSocket class as nostr-tools' `websocketImplementation` takes it. */
export type RelaySocketClass = typeof globalThis.WebSocket;

/** Options of {@link createRelaySocket}. */
export interface RelaySocketOptions {
  /** Largest message taken, in bytes (default {@link MAX_RELAY_MESSAGE_BYTES}). */
  maxPayload?: number;
  /** Called when a relay sent a larger message: the connection is being closed with 1009. */
  onTooLarge?: (url: string) => void;
  /**
   * Which addresses may be connected to (net/connect-policy.ts; default: any). A relay's host is resolved
   * once and judged before a byte is sent; a refused one fails to connect, and `onRefused` says why.
   */
  policy?: ConnectPolicy;
  /** Called with the refusal's message when `policy` refused the relay's address. */
  onRefused?: (url: string, message: string) => void;
}

/**
 * A WebSocket class for nostr-tools (`new AbstractRelay(url, { websocketImplementation })`, or a pool's
 * option of that name) on `ws`, capped at `maxPayload` bytes per message.
 *
 * @example
 * ```ts
 * const relay = new AbstractRelay(url, { verifyEvent, websocketImplementation: createRelaySocket() });
 * ```
 */
export function createRelaySocket(options: RelaySocketOptions = {}): RelaySocketClass {
  const maxPayload = options.maxPayload ?? MAX_RELAY_MESSAGE_BYTES;
  const { onTooLarge, policy, onRefused } = options;
  class CappedWebSocket extends WebSocket {
    constructor(url: string | URL) {
      // Node calls no `lookup` for an IP literal: a refused one is refused here, before connecting.
      const literal = policy ? refuseLiteral(policy, new URL(String(url)).hostname) : undefined;
      if (literal) {
        onRefused?.(String(url), literal.message);
        throw literal;
      }
      super(url, {
        maxPayload,
        ...(policy ? { lookup: policyLookup(policy, (message) => onRefused?.(String(url), message)) } : {}),
      });
      this.on('error', (error: Error & { code?: string }) => {
        if (error.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
        // `ws` has sent its close frame (1009) by now, and would go on reading the rest of the message
        // to discard it while it waits for the relay's: 64 MiB of reads raised the peak memory by 45 MB
        // before the garbage was collected. Dropping the connection reads no more of it.
        this.terminate();
        onTooLarge?.(String(url));
      });
    }
  }
  return CappedWebSocket as unknown as RelaySocketClass;
}

/** `sent a message larger than 2 MiB: connection closed (1009)`, for a relay {@link createRelaySocket} cut off. */
export function describeTooLarge(maxPayload: number = MAX_RELAY_MESSAGE_BYTES): string {
  return `sent a message larger than ${formatByteSize(maxPayload)}: connection closed (1009)`;
}
