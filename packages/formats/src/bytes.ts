// Byte helpers the format readers and writers share: web APIs only (no Buffer), so they run in every runtime.

const encoder = new TextEncoder();

/** `text` as UTF-8. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** Bytes turned into one string at a time by {@link latin1}: spread as arguments, so well under the engines' limit. */
const LATIN1_CHUNK = 1024;

/**
 * `length` bytes at `offset` as Latin-1 text (one character per byte; shorter past the end), in plain web
 * APIs: `String.fromCharCode` over 1 KiB pieces, the fastest we measured without Node's `Buffer` (widening to
 * UTF-16 for a `TextDecoder` was 1.5× slower; `TextDecoder('latin1')` is windows-1252, which differs in
 * 0x80–0x9F, so it is wrong here). A whole PDF is searched as this text: on Node the faster `Buffer` decoder
 * comes in through the primitives (`FormatPrimitives.latin1`, primitives.ts).
 */
export function latin1(bytes: Uint8Array, offset = 0, length = bytes.length - offset): string {
  const end = Math.min(bytes.length, offset + length);
  if (end - offset <= LATIN1_CHUNK) return charCodes(bytes.subarray(offset, end));
  const parts: string[] = [];
  for (let start = offset; start < end; start += LATIN1_CHUNK) {
    parts.push(charCodes(bytes.subarray(start, Math.min(end, start + LATIN1_CHUNK))));
  }
  return parts.join('');
}

/** One character per byte of a short run (`apply` takes any array-like; the types want `number[]`). */
function charCodes(bytes: Uint8Array): string {
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/** Latin-1 text (every character below U+0100) as bytes. */
export function latin1Bytes(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** The parts one after the other, in a new array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (ISO 3309, as PNG chunks use it). */
export function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++)
    crc = (crcTable[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Bytes checked at a time by {@link isUtf8}: the strings decoded are dropped piece by piece. */
const UTF8_CHECK_BYTES = 1024 * 1024;

/**
 * Whether `bytes` are valid UTF-8: a fatal decoder refuses anything else. Decoded a megabyte at a time, so a
 * large upload never becomes one string as large as itself.
 */
export function isUtf8(bytes: Uint8Array): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    for (let start = 0; start < bytes.length; start += UTF8_CHECK_BYTES) {
      decoder.decode(bytes.subarray(start, start + UTF8_CHECK_BYTES), { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** Whether `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Hexadecimal text as bytes, as Node's `Buffer.from(hex, 'hex')` reads it: up to the first pair that is not
 * two hex digits (an odd last digit is dropped).
 */
export function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) {
    const pair = hex.slice(2 * i, 2 * i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) return bytes.slice(0, i);
    bytes[i] = Number.parseInt(pair, 16);
  }
  return bytes;
}
