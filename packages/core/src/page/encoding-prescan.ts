// The standard's prescan of a page's bytes for the encoding it declares ("prescan a byte stream to determine
// its encoding"): every `<meta charset>` / `<meta http-equiv="content-type">` declaration with its offset,
// an XML declaration, the UTF-16 `<?x` prefixes. Apart from encoding.ts, which decides with it what a browser
// decodes the page as (BOM, HTTP header, prescan) and whether Siegel reads it: this file is the byte-level
// reader, run over every page a signing run or a verifier reads, and written for that (no strings built
// for what it only reads past). Pure, no Node built-ins: the browser verify script bundles it.
import { normalizeEncoding } from '@exodus/bytes/encoding-lite.js';

/** How many bytes the standard's prescan reads ("user agents are encouraged to only prescan the first 1024 bytes"). */
export const PRESCAN_BYTES = 1024;

/** An encoding declared in the page: its WHATWG name (lowercase, `utf-8`, `windows-1252`…) and where. */
export interface Declaration {
  encoding: string;
  /** Byte offset of the declaring `<meta` (or of the XML declaration, or 0 for a UTF-16 `<?x` prefix). */
  at: number;
}

const isSpace = (byte: number | undefined) =>
  byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
const isLetter = (byte: number | undefined) =>
  byte !== undefined && ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a));
const lower = (byte: number) => String.fromCharCode(byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);

/** The standard's "get an encoding": the WHATWG name (lowercase) of a label, `undefined` for an unknown one. */
export function encodingOfLabel(label: string): string | undefined {
  return normalizeEncoding(label) ?? undefined;
}

/** A `<meta>` declaration's encoding after the prescan's fix-ups: UTF-16 means UTF-8, x-user-defined windows-1252. */
function metaEncoding(encoding: string): string {
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  return encoding === 'x-user-defined' ? 'windows-1252' : encoding;
}

/** Signals that the bytes ran out inside a `<meta>`: the standard's prescan then stops with nothing. */
class OutOfBytes extends Error {}

/**
 * The standard's "get an attribute" at `i`: the attribute (name and value lowercased) and the position
 * after it, or only the position when there is none. With `read` false it only reads past the attribute
 * (name and value `''`): other tags' attributes, whose strings were most of the prescan's time. Throws
 * {@link OutOfBytes} at the end of `bytes`.
 */
function getAttribute(
  bytes: Uint8Array,
  start: number,
  read = true,
): { name?: string; value?: string; i: number } {
  const at = (i: number) => {
    if (i >= bytes.length) throw new OutOfBytes();
    return bytes[i] as number;
  };
  let i = start;
  while (isSpace(at(i)) || at(i) === 0x2f) i++;
  if (at(i) === 0x3e) return { i };
  let name = '';
  let value = '';
  // A leading `=` is part of the name.
  let named = false;
  for (;;) {
    const byte = at(i);
    if (byte === 0x3d && named) {
      i++;
      break;
    }
    if (isSpace(byte)) {
      while (isSpace(at(i))) i++;
      if (at(i) !== 0x3d) return { name, value, i };
      i++;
      break;
    }
    if (byte === 0x2f || byte === 0x3e) return { name, value, i };
    if (read) name += lower(byte);
    named = true;
    i++;
  }
  while (isSpace(at(i))) i++;
  const first = at(i);
  if (first === 0x22 || first === 0x27) {
    for (i++; at(i) !== first; i++) if (read) value += lower(at(i));
    return { name, value, i: i + 1 };
  }
  if (first === 0x3e) return { name, value, i };
  if (read) value += lower(first);
  for (i++; !isSpace(at(i)) && at(i) !== 0x3e; i++) if (read) value += lower(at(i));
  return { name, value, i };
}

/** The standard's "extracting a character encoding from a meta element" (the `content` attribute). */
export function encodingFromContent(content: string): string | undefined {
  let position = 0;
  for (;;) {
    const found = content.slice(position).search(/charset/i);
    if (found < 0) return undefined;
    let i = position + found + 'charset'.length;
    while (isSpace(content.charCodeAt(i))) i++;
    if (content[i] !== '=') {
      position = i;
      continue;
    }
    i++;
    while (isSpace(content.charCodeAt(i))) i++;
    const next = content[i];
    if (next === '"' || next === "'") {
      const end = content.indexOf(next, i + 1);
      return end < 0 ? undefined : encodingOfLabel(content.slice(i + 1, end));
    }
    if (next === undefined) return undefined;
    return encodingOfLabel(/^[^\t\n\f\r ;]*/.exec(content.slice(i))?.[0] ?? '');
  }
}

/**
 * Every `<meta>` that declares an encoding, in byte order, as the standard's prescan reads them: comments
 * skipped, other tags' attributes read past, a `<meta>` counted when its `charset` (or `http-equiv` plus a
 * `content` with `charset=`) names a known encoding. The prescan proper is the first of these within
 * {@link PRESCAN_BYTES}; scanning on finds the ones a browser may still switch to. Stops at a `<meta>` the
 * bytes end inside.
 */
export function* metaDeclarations(bytes: Uint8Array): Generator<Declaration> {
  const length = bytes.length;
  // From one `<` to the next (`indexOf`: the bytes between are not looked at one by one in JavaScript).
  for (let i = bytes.indexOf(0x3c); i >= 0 && i < length; i = bytes.indexOf(0x3c, i + 1)) {
    const start = i;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    const b3 = bytes[i + 3];
    const b4 = bytes[i + 4];
    const b5 = bytes[i + 5];
    if (b1 === 0x21 && b2 === 0x2d && b3 === 0x2d) {
      // `<!--`: on to the `>` of the first `-->` (its dashes may be the opening ones).
      i = bytes.indexOf(0x3e, i + 3);
      while (i >= 0 && !(bytes[i - 1] === 0x2d && bytes[i - 2] === 0x2d)) i = bytes.indexOf(0x3e, i + 1);
      if (i < 0) i = length;
    } else if (
      (b1 === 0x4d || b1 === 0x6d) &&
      (b2 === 0x45 || b2 === 0x65) &&
      (b3 === 0x54 || b3 === 0x74) &&
      (b4 === 0x41 || b4 === 0x61) &&
      (isSpace(b5) || b5 === 0x2f)
    ) {
      const seen = new Set<string>();
      let gotPragma = false;
      let needPragma: boolean | undefined;
      // `null`: a `charset` attribute named no known encoding (the standard's failure, which `content` does not undo).
      let charset: string | null | undefined;
      i += 6;
      try {
        for (;;) {
          const attribute = getAttribute(bytes, i);
          i = attribute.i;
          if (attribute.name === undefined) break;
          if (seen.has(attribute.name)) continue;
          seen.add(attribute.name);
          if (attribute.name === 'http-equiv') {
            if (attribute.value === 'content-type') gotPragma = true;
          } else if (attribute.name === 'content') {
            const found = encodingFromContent(attribute.value ?? '');
            if (found !== undefined && charset === undefined) {
              charset = found;
              needPragma = true;
            }
          } else if (attribute.name === 'charset') {
            charset = encodingOfLabel(attribute.value ?? '') ?? null;
            needPragma = false;
          }
        }
      } catch (error) {
        if (error instanceof OutOfBytes) return;
        throw error;
      }
      if (needPragma === undefined || (needPragma && !gotPragma) || !charset) continue;
      yield { encoding: metaEncoding(charset), at: start };
    } else if (isLetter(b1) || (b1 === 0x2f && isLetter(b2))) {
      // Another tag: past its name, then past its attributes.
      for (i += 2; i < length && !isSpace(bytes[i]) && bytes[i] !== 0x3e; i++);
      try {
        for (;;) {
          const attribute = getAttribute(bytes, i, false);
          i = attribute.i;
          if (attribute.name === undefined) break;
        }
      } catch (error) {
        if (error instanceof OutOfBytes) return;
        throw error;
      }
    } else if (b1 === 0x21 || b1 === 0x2f || b1 === 0x3f) {
      // `<!…>`, `</…>`, `<?…>`: on to the next `>`.
      i = bytes.indexOf(0x3e, i + 2);
      if (i < 0) i = length;
    }
  }
}

/** The standard's "get an XML encoding" when sniffing: `<?xml … encoding="…"` at the very start. */
function xmlDeclaration(bytes: Uint8Array): string | undefined {
  if (
    !(bytes[0] === 0x3c && bytes[1] === 0x3f && bytes[2] === 0x78 && bytes[3] === 0x6d && bytes[4] === 0x6c)
  )
    return undefined;
  const end = bytes.indexOf(0x3e, 5);
  if (end < 0) return undefined;
  // The first `encoding` (case-sensitive, also inside another name), `=` and a quoted label, with any
  // byte up to 0x20 as white space around `=` and none inside the label.
  let i = bytes.subarray(0, end).indexOf(ENCODING_WORD[0] as number, 5);
  while (i >= 0 && !ENCODING_WORD.every((byte, n) => bytes[i + n] === byte))
    i = bytes.subarray(0, end).indexOf(ENCODING_WORD[0] as number, i + 1);
  if (i < 0 || i + ENCODING_WORD.length >= end) return undefined;
  i += ENCODING_WORD.length;
  while (i < end && (bytes[i] as number) <= 0x20) i++;
  if (bytes[i] !== 0x3d) return undefined;
  for (i++; i < end && (bytes[i] as number) <= 0x20; i++);
  const quote = bytes[i];
  if (i >= end || (quote !== 0x22 && quote !== 0x27)) return undefined;
  let label = '';
  for (i++; i < end && bytes[i] !== quote; i++) {
    if ((bytes[i] as number) <= 0x20) return undefined;
    label += String.fromCharCode(bytes[i] as number);
  }
  if (i >= end) return undefined;
  const encoding = encodingOfLabel(label);
  return encoding === undefined ? undefined : metaEncoding(encoding);
}

const ENCODING_WORD = [0x65, 0x6e, 0x63, 0x6f, 0x64, 0x69, 0x6e, 0x67]; // `encoding`

/**
 * The standard's "prescan a byte stream to determine its encoding" over the first `limit` bytes: a UTF-16
 * `<?x` prefix, the first `<meta>` declaration, else an XML declaration. `undefined` when none is found.
 *
 * @example
 * ```ts
 * prescanEncoding(new TextEncoder().encode('<!-- x --><meta charset="Latin1">')); // { encoding: 'windows-1252', at: 10 }
 * ```
 */
export function prescanEncoding(bytes: Uint8Array, limit: number = PRESCAN_BYTES): Declaration | undefined {
  const b = bytes.subarray(0, limit);
  if (b[0] === 0x3c && b[1] === 0 && b[2] === 0x3f && b[3] === 0 && b[4] === 0x78 && b[5] === 0)
    return { encoding: 'utf-16le', at: 0 };
  if (b[0] === 0 && b[1] === 0x3c && b[2] === 0 && b[3] === 0x3f && b[4] === 0 && b[5] === 0x78)
    return { encoding: 'utf-16be', at: 0 };
  const meta = metaDeclarations(b).next();
  if (!meta.done) return meta.value;
  const xml = xmlDeclaration(bytes);
  return xml === undefined ? undefined : { encoding: xml, at: 0 };
}
