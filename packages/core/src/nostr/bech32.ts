// NIP-19 encoding (bech32, BIP-173) of the two entities Siegel writes for every page: `nevent` in the block
// and the verify page, `npub` on the verify page. Kept instead of nostr-tools' encoders because the bench
// shows the difference: theirs go through a generic radix conversion, about 20 µs and several short-lived
// arrays per `nevent`, and with them a cold 10 000-page run peaked at 395–403 MB (goal ≤ 400 MB) against
// 361–363 MB with these, measured side by side on the same machine. These produce the same strings (the
// test compares them with nostr-tools'). Decoding stays with nostr-tools: readers are not on the hot path.

import { hexToBytes } from '@noble/hashes/utils.js';
import { HEX64 } from './event-shape.js';
import { requireRelayHintSize } from './relays.js';

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const encoder = new TextEncoder();

const [G0, G1, G2, G3, G4] = GENERATOR as [number, number, number, number, number];

function polymodStep(checksum: number): number {
  const top = checksum >>> 25;
  // Branch-free: each of the five top bits selects one generator value.
  return (
    (((checksum & 0x1ffffff) << 5) ^
      (-(top & 1) & G0) ^
      (-((top >>> 1) & 1) & G1) ^
      (-((top >>> 2) & 1) & G2) ^
      (-((top >>> 3) & 1) & G3) ^
      (-((top >>> 4) & 1) & G4)) >>>
    0
  );
}

const CHAR_CODES = Array.from(CHARSET, (char) => char.charCodeAt(0));

/** bech32 of `bytes` under the human-readable part `prefix` (lowercase ASCII). */
function encodeBech32(prefix: string, bytes: Uint8Array): string {
  let checksum = 1;
  for (let index = 0; index < prefix.length; index++)
    checksum = polymodStep(checksum) ^ (prefix.charCodeAt(index) >>> 5);
  checksum = polymodStep(checksum);
  for (let index = 0; index < prefix.length; index++)
    checksum = polymodStep(checksum) ^ (prefix.charCodeAt(index) & 31);
  const codes: number[] = [];
  // 8-bit bytes to 5-bit words, padded with zero bits at the end.
  let accumulator = 0;
  let bits = 0;
  for (const byte of bytes) {
    accumulator = ((accumulator << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      const word = (accumulator >>> bits) & 31;
      checksum = polymodStep(checksum) ^ word;
      codes.push(CHAR_CODES[word] as number);
    }
  }
  if (bits > 0) {
    const word = (accumulator << (5 - bits)) & 31;
    checksum = polymodStep(checksum) ^ word;
    codes.push(CHAR_CODES[word] as number);
  }
  for (let index = 0; index < 6; index++) checksum = polymodStep(checksum);
  checksum ^= 1;
  for (let index = 0; index < 6; index++)
    codes.push(CHAR_CODES[(checksum >>> (5 * (5 - index))) & 31] as number);
  return `${prefix}1${String.fromCharCode(...codes)}`;
}

function requireHex64(hex: string, what: string): string {
  if (!HEX64.test(hex)) throw new TypeError(`${what} must be 64 lowercase hex characters`);
  return hex;
}

/**
 * NIP-19 `npub` of a 64-hex public key; no Node built-in, so the reader's mark bundles it for the browser.
 * @throws {TypeError} when the key is not 64 lowercase hex.
 */
export function encodeNpub(pubkey: string): string {
  return encodeBech32('npub', hexToBytes(requireHex64(pubkey, 'pubkey')));
}

/** Input of {@link encodeNevent}: the same fields nostr-tools' `neventEncode` takes. */
export interface NeventInput {
  id: string;
  author?: string;
  kind?: number;
  relays?: string[];
}

/**
 * NIP-19 `nevent` with the TLV entries in nostr-tools' order (kind, author, relays, id), so the string is
 * identical to `neventEncode`'s. @throws {TypeError} on a malformed id or author; {SiegelError} `invalid_options` for a relay over 255 bytes.
 */
export function encodeNevent({ id, author, kind, relays = [] }: NeventInput): string {
  requireHex64(id, 'id');
  if (author) requireHex64(author, 'author');
  for (const relay of relays) requireRelayHintSize(relay);
  const relayBytes = relays.map((relay) => encoder.encode(relay));
  const size =
    (kind === undefined ? 0 : 6) +
    (author ? 34 : 0) +
    relayBytes.reduce((sum, relay) => sum + relay.length + 2, 0) +
    34;
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  if (kind !== undefined) {
    bytes[offset++] = 3;
    bytes[offset++] = 4;
    offset = bytes.writeUInt32BE(kind >>> 0, offset);
  }
  if (author) {
    bytes[offset++] = 2;
    bytes[offset++] = 32;
    offset += bytes.write(author, offset, 'hex');
  }
  for (const relay of relayBytes) {
    bytes[offset++] = 1;
    bytes[offset++] = relay.length;
    bytes.set(relay, offset);
    offset += relay.length;
  }
  bytes[offset++] = 0;
  bytes[offset++] = 32;
  bytes.write(id, offset, 'hex');
  return encodeBech32('nevent', bytes);
}
