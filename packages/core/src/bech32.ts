// NIP-19 encoding (bech32, BIP-173) of the two entities Siegel writes for every page: `nevent` in the block
// and the verify page, `npub` on the verify page. nostr-tools' encoders go through a generic radix
// conversion and cost about 20 µs per `nevent`; a warm run writes tens of thousands of them. These produce
// the same strings (the test compares them with nostr-tools') in a fraction of that. Decoding stays with
// nostr-tools: readers are not on the hot path.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const HEX64 = /^[0-9a-f]{64}$/;
const encoder = new TextEncoder();

function polymodStep(checksum: number): number {
  const top = checksum >>> 25;
  let next = (checksum & 0x1ffffff) << 5;
  for (let bit = 0; bit < 5; bit++) if ((top >>> bit) & 1) next ^= GENERATOR[bit] as number;
  return next;
}

/** bech32 of `bytes` under the human-readable part `prefix` (lowercase ASCII). */
function encodeBech32(prefix: string, bytes: Uint8Array): string {
  let checksum = 1;
  for (let index = 0; index < prefix.length; index++)
    checksum = polymodStep(checksum) ^ (prefix.charCodeAt(index) >>> 5);
  checksum = polymodStep(checksum);
  for (let index = 0; index < prefix.length; index++)
    checksum = polymodStep(checksum) ^ (prefix.charCodeAt(index) & 31);
  let out = `${prefix}1`;
  // 8-bit bytes to 5-bit words, padded with zero bits at the end.
  let accumulator = 0;
  let bits = 0;
  const pushWord = (word: number): void => {
    checksum = polymodStep(checksum) ^ word;
    out += CHARSET[word];
  };
  for (const byte of bytes) {
    accumulator = ((accumulator << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      pushWord((accumulator >>> bits) & 31);
    }
  }
  if (bits > 0) pushWord((accumulator << (5 - bits)) & 31);
  for (let index = 0; index < 6; index++) checksum = polymodStep(checksum);
  checksum ^= 1;
  for (let index = 0; index < 6; index++) out += CHARSET[(checksum >>> (5 * (5 - index))) & 31];
  return out;
}

function hexBytes(hex: string, what: string): Uint8Array {
  if (!HEX64.test(hex)) throw new TypeError(`${what} must be 64 lowercase hex characters`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** NIP-19 `npub` of a 64-hex public key. @throws {TypeError} when the key is not 64 lowercase hex. */
export function encodeNpub(pubkey: string): string {
  return encodeBech32('npub', hexBytes(pubkey, 'pubkey'));
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
 * identical to `neventEncode`'s. @throws {TypeError} on a malformed id or author, or a relay over 255 bytes.
 */
export function encodeNevent({ id, author, kind, relays = [] }: NeventInput): string {
  const entries: Array<[number, Uint8Array]> = [];
  if (kind !== undefined) {
    entries.push([
      3,
      Uint8Array.of((kind >>> 24) & 255, (kind >>> 16) & 255, (kind >>> 8) & 255, kind & 255),
    ]);
  }
  if (author) entries.push([2, hexBytes(author, 'author')]);
  for (const relay of relays) entries.push([1, encoder.encode(relay)]);
  entries.push([0, hexBytes(id, 'id')]);
  const bytes = new Uint8Array(entries.reduce((sum, [, value]) => sum + value.length + 2, 0));
  let offset = 0;
  for (const [type, value] of entries) {
    if (value.length > 255) throw new TypeError('a relay URL in an nevent is at most 255 bytes');
    bytes[offset] = type;
    bytes[offset + 1] = value.length;
    bytes.set(value, offset + 2);
    offset += value.length + 2;
  }
  return encodeBech32('nevent', bytes);
}
