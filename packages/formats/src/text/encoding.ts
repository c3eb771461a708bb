// The encodings the service reads text in — UTF-8 (with or without a byte order mark), and UTF-16 in either
// byte order after its byte order mark — and the code units the text readers scan. The bytes are kept and
// hashed as uploaded; only what the readers need is ever decoded.
import { isUtf8 } from '../bytes.js';
import { damaged, unsupported } from '../format-error.js';

/** The encoding of a text upload, as `TextDecoder` names it. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

/**
 * The encoding `bytes` declare by their byte order mark: `FF FE` UTF-16LE, `FE FF` UTF-16BE, else UTF-8 (with
 * or without `EF BB BF`) — the order browsers follow too (the Encoding standard's BOM sniffing).
 */
export function textEncodingOf(bytes: Uint8Array): TextEncodingName {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** Bytes decoded at a time when checking UTF-16 (the strings built are dropped chunk by chunk). */
const CHECK_CHUNK_BYTES = 1024 * 1024;

/**
 * Check that `bytes` are text the service reads: valid UTF-8 without NUL (checked by `isUtf8`
 * a megabyte at a time: decoding at once would build a string as large as the file only to drop it), or valid UTF-16 after
 * its byte order mark — an even length, no unpaired surrogate, no NUL (decoded a megabyte at a time).
 *
 * @throws {FormatError} `unsupported` for another encoding (UTF-32, UTF-16 without a byte order mark,
 *   Latin-1 …), `damaged` for UTF-16 whose bytes are broken (it says what it is, but is not).
 */
export function checkTextEncoding(bytes: Uint8Array, fileName: string): void {
  if (startsWith(bytes, [0xff, 0xfe, 0, 0]) || startsWith(bytes, [0, 0, 0xfe, 0xff])) {
    throw unsupported('text', `\`${fileName}\` is UTF-32 text, which is not supported; save it as UTF-8`);
  }
  const encoding = textEncodingOf(bytes);
  if (encoding === 'utf-8') {
    if (!bytes.includes(0) && isUtf8(bytes)) return;
    throw unsupported('text', `\`${fileName}\` is not UTF-8 text: ${describeOtherEncoding(bytes)}`);
  }
  const broken = (reason: string) =>
    damaged(
      'text',
      `\`${fileName}\` starts with a UTF-16 byte order mark but ${reason}; save it again as UTF-8 or UTF-16`,
    );
  if (bytes.length % 2 !== 0) throw broken(`has an odd number of bytes (${bytes.length})`);
  const decoder = new TextDecoder(encoding, { fatal: true });
  let holdsNul = false;
  try {
    for (let start = 0; start < bytes.length && !holdsNul; start += CHECK_CHUNK_BYTES) {
      const end = Math.min(bytes.length, start + CHECK_CHUNK_BYTES);
      holdsNul = decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length }).includes('\0');
    }
  } catch {
    throw broken('is not valid UTF-16 (an unpaired surrogate)');
  }
  if (holdsNul) throw broken('holds a NUL character, as binary files do');
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

/** Why bytes that are not UTF-8 are refused, and what to do: UTF-16 without its byte order mark is told apart. */
function describeOtherEncoding(bytes: Uint8Array): string {
  // UTF-16 text of mostly ASCII has a NUL in every other byte: odd positions in LE, even ones in BE.
  const head = bytes.subarray(0, 4096 - (Math.min(bytes.length, 4096) % 2));
  let even = 0;
  let odd = 0;
  for (let i = 0; i < head.length; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  if (head.length >= 4 && Math.max(even, odd) >= head.length / 4 && Math.min(even, odd) === 0) {
    return 'it looks like UTF-16 without a byte order mark; save it as UTF-8 (or as UTF-16 with a byte order mark)';
  }
  return bytes.includes(0)
    ? 'it holds NUL bytes, as binary files do'
    : 'it may be Latin-1, Windows-1252 or another encoding; save it as UTF-8 (or as UTF-16 with a byte order mark)';
}

/**
 * The code units of a text after its byte order mark: UTF-8 bytes, or UTF-16 code units in this machine's
 * byte order. Everything the text readers look at — fences, `#`, `%`, `:`, blanks, line breaks — is ASCII, and
 * an ASCII unit is always that character in both (never part of another), so the readers scan units and
 * decode only the ranges they keep.
 */
export interface TextUnits {
  readonly units: Uint8Array | Uint16Array;
  /** The most units one UTF-16 code unit of the decoded text takes: 3 in UTF-8, 1 in UTF-16. */
  readonly unitsPerChar: number;
  /** The text of `units[start, end)`. */
  decode(start: number, end: number): string;
}

const NATIVE_UTF16: TextEncodingName =
  new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'utf-16le' : 'utf-16be';

/**
 * {@link TextUnits} of checked text ({@link checkTextEncoding}). UTF-8 is read in place; UTF-16 in place when
 * it is in this machine's byte order and aligned, else from a copy (as large as the file) in that order.
 */
export function readTextUnits(bytes: Uint8Array): TextUnits {
  const encoding = textEncodingOf(bytes);
  if (encoding === 'utf-8') {
    const units = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    return { units, unitsPerChar: 3, decode: (start, end) => decoder.decode(units.subarray(start, end)) };
  }
  const body = bytes.subarray(2, bytes.length - (bytes.length % 2));
  let units: Uint16Array;
  if (encoding === NATIVE_UTF16 && body.byteOffset % 2 === 0) {
    units = new Uint16Array(body.buffer, body.byteOffset, body.length / 2);
  } else {
    const copy = new Uint8Array(body.length); // its own, aligned buffer
    if (encoding === NATIVE_UTF16) copy.set(body);
    else {
      for (let i = 0; i < body.length; i += 2) {
        copy[i] = body[i + 1] as number;
        copy[i + 1] = body[i] as number;
      }
    }
    units = new Uint16Array(copy.buffer, 0, copy.length / 2);
  }
  const decoder = new TextDecoder(NATIVE_UTF16, { ignoreBOM: true });
  return { units, unitsPerChar: 1, decode: (start, end) => decoder.decode(units.subarray(start, end)) };
}
