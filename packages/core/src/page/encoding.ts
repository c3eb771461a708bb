// The character encoding a browser reads a page's bytes in, decided as the WHATWG HTML standard's
// "encoding sniffing algorithm" decides it: a byte order mark, then the HTTP `Content-Type` charset, then
// the prescan of the first 1024 bytes for `<meta charset>` / `<meta http-equiv="content-type">` (and an
// XML declaration). Siegel signs and verifies UTF-8 only, so `checkEncoding` is the one rule every signer
// and verifier applies to the bytes before it reads them as UTF-8: a page a browser would decode otherwise
// is not verifiable (`page.encoding`) — unless its bytes are plain ASCII and the encoding is one that reads
// them exactly as UTF-8 does. Pure, no Node built-ins: the browser verify script bundles it.
//
// The prescan is written here, not taken from `html-encoding-sniffer`: that package always answers with a
// fallback encoding, reads only the first declaration, and brings a TextDecoder polyfill along (+25 KB in
// the verify script). The rule needs every `<meta>` declaration in the page with its offset — Chromium still
// switches to one found after 1024 bytes, also in `<body>` — and whether anything was declared at all.
// The label → encoding table of the Encoding Standard comes from `@exodus/bytes` (3 KB in the bundle).
import { getBOMEncoding, normalizeEncoding } from '@exodus/bytes/encoding-lite.js';
import type { Refusal } from './coverage.js';

/** How many bytes the standard's prescan reads ("user agents are encouraged to only prescan the first 1024 bytes"). */
export const PRESCAN_BYTES = 1024;

/** An encoding declared in the page: its WHATWG name (lowercase, `utf-8`, `windows-1252`…) and where. */
export interface Declaration {
  encoding: string;
  /** Byte offset of the declaring `<meta` (or of the XML declaration, or 0 for a UTF-16 `<?x` prefix). */
  at: number;
}

/** Where the encoding a browser uses comes from. */
export type EncodingSource = 'bom' | 'http' | 'meta' | 'none';

/** What {@link sniffEncoding} found. */
export interface EncodingSniff {
  /** The WHATWG encoding name, lowercase; `undefined` when nothing declares one (`source: 'none'`). */
  encoding: string | undefined;
  source: EncodingSource;
  /** Where a `meta` declaration is (byte offset). */
  at?: number;
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
 * after it, or only the position when there is none. Throws {@link OutOfBytes} at the end of `bytes`.
 */
function getAttribute(bytes: Uint8Array, start: number): { name?: string; value?: string; i: number } {
  const at = (i: number) => {
    if (i >= bytes.length) throw new OutOfBytes();
    return bytes[i] as number;
  };
  let i = start;
  while (isSpace(at(i)) || at(i) === 0x2f) i++;
  if (at(i) === 0x3e) return { i };
  let name = '';
  let value = '';
  for (;;) {
    const byte = at(i);
    if (byte === 0x3d && name !== '') {
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
    name += lower(byte);
    i++;
  }
  while (isSpace(at(i))) i++;
  const first = at(i);
  if (first === 0x22 || first === 0x27) {
    for (i++; at(i) !== first; i++) value += lower(at(i));
    return { name, value, i: i + 1 };
  }
  if (first === 0x3e) return { name, value, i };
  value += lower(first);
  for (i++; !isSpace(at(i)) && at(i) !== 0x3e; i++) value += lower(at(i));
  return { name, value, i };
}

/**
 * Past every attribute of a tag that is not a `<meta>`, as repeated {@link getAttribute} calls read past
 * them, but building no names or values (most of the prescan's time went into those strings): the position
 * of the `>` that ends the tag. Throws {@link OutOfBytes} at the end of `bytes`.
 */
function skipAttributes(bytes: Uint8Array, start: number): number {
  const at = (i: number) => {
    if (i >= bytes.length) throw new OutOfBytes();
    return bytes[i] as number;
  };
  let i = start;
  for (;;) {
    while (isSpace(at(i)) || at(i) === 0x2f) i++;
    if (at(i) === 0x3e) return i;
    // The name: up to `=` (a leading `=` is part of it), white space, `/` or `>`.
    let named = false;
    let valued = false;
    for (;;) {
      const byte = at(i);
      if (byte === 0x3d && named) {
        i++;
        valued = true;
        break;
      }
      if (isSpace(byte)) {
        while (isSpace(at(i))) i++;
        if (at(i) === 0x3d) {
          i++;
          valued = true;
        }
        break;
      }
      if (byte === 0x2f || byte === 0x3e) break;
      named = true;
      i++;
    }
    if (!valued) continue;
    while (isSpace(at(i))) i++;
    const first = at(i);
    if (first === 0x22 || first === 0x27) {
      for (i++; at(i) !== first; i++);
      i++;
    } else if (first !== 0x3e) {
      for (i++; !isSpace(at(i)) && at(i) !== 0x3e; i++);
    }
  }
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
        i = skipAttributes(bytes, i);
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

/**
 * The `charset` parameter of a `Content-Type` header value (the first one, quotes removed), as the
 * standard's MIME type parser reads it; `undefined` when there is none.
 *
 * @example
 * ```ts
 * readCharsetParameter('text/html; Charset="ISO-8859-1"'); // 'ISO-8859-1'
 * ```
 */
export function readCharsetParameter(contentType: string | null | undefined): string | undefined {
  if (!contentType) return undefined;
  const semicolon = contentType.indexOf(';');
  if (semicolon < 0) return undefined;
  const rest = contentType.slice(semicolon + 1);
  let i = 0;
  while (i < rest.length) {
    while (i < rest.length && /[\t\n\r ;]/.test(rest[i] as string)) i++;
    let name = '';
    while (i < rest.length && rest[i] !== ';' && rest[i] !== '=') name += rest[i++];
    name = name.toLowerCase();
    if (rest[i] === ';') continue;
    i++; // `=` (or the end)
    let value = '';
    if (rest[i] === '"') {
      for (i++; i < rest.length && rest[i] !== '"'; i++) {
        if (rest[i] === '\\' && i + 1 < rest.length) i++;
        value += rest[i];
      }
      while (i < rest.length && rest[i] !== ';') i++;
    } else {
      while (i < rest.length && rest[i] !== ';') value += rest[i++];
      value = value.replace(/[\t\n\r ]+$/, '');
    }
    if (name === 'charset' && value !== '') return value;
  }
  return undefined;
}

/**
 * The standard's encoding sniffing algorithm without its last, guessing step: a byte order mark, then the
 * HTTP `Content-Type` charset (`contentType`, when the page was served), then the prescan of the first
 * 1024 bytes. `source: 'none'` when nothing declares an encoding — a browser then falls back to a locale
 * default (windows-1252 in most locales; Firefox never guesses UTF-8 for an http(s) page).
 *
 * @example
 * ```ts
 * sniffEncoding(bytes, { contentType: 'text/html; charset=iso-8859-1' }); // { encoding: 'windows-1252', source: 'http' }
 * ```
 */
export function sniffEncoding(
  bytes: Uint8Array,
  options: { contentType?: string | null } = {},
): EncodingSniff {
  const bom = getBOMEncoding(bytes);
  if (bom) return { encoding: bom, source: 'bom' };
  const label = readCharsetParameter(options.contentType);
  const http = label === undefined ? undefined : encodingOfLabel(label);
  if (http !== undefined) return { encoding: http, source: 'http' };
  const declared = prescanEncoding(bytes);
  if (declared) return { encoding: declared.encoding, source: 'meta', at: declared.at };
  return { encoding: undefined, source: 'none' };
}

/** Bytes every ASCII-compatible encoding reads alike: ASCII without ESC, SO and SI (ISO-2022-JP's shifts). */
function isPlainAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte >= 0x80 || byte === 0x1b || byte === 0x0e || byte === 0x0f) return false;
  return true;
}

/**
 * The encodings that do not read an ASCII byte as that ASCII character, as the Encoding Standard names them
 * ("ASCII-incompatible": ISO-2022-JP, whose escapes switch ASCII bytes to JIS X 0208; UTF-16BE and LE, two
 * bytes a code unit; `replacement`, one U+FFFD for the whole input — `csiso2022kr`, `hz-gb-2312`,
 * `iso-2022-cn`, `iso-2022-cn-ext`, `iso-2022-kr`). Every other encoding, x-user-defined included, decodes
 * bytes 0x00–0x7F as U+0000–U+007F, so plain ASCII reads under it exactly as under UTF-8.
 */
const ASCII_INCOMPATIBLE = new Set(['iso-2022-jp', 'utf-16be', 'utf-16le', 'replacement']);

const NAMES: Record<string, string> = { 'utf-8': 'UTF-8', 'utf-16le': 'UTF-16LE', 'utf-16be': 'UTF-16BE' };
const nameOf = (encoding: string) => NAMES[encoding] ?? encoding;
const ADD_META = 'declare `<meta charset="utf-8">` within its first 1024 bytes';

/**
 * Whether a browser reads `bytes` as UTF-8 — the one encoding Siegel signs and verifies — or why not: a
 * UTF-16 byte order mark; an HTTP charset (`contentType`, when the page was served) or a `<meta>` / XML
 * declaration in the first 1024 bytes naming another encoding; or, with none of these, a later `<meta>`
 * naming another encoding (browsers may still switch to it: Chromium does) or bytes beyond plain ASCII
 * (a browser then decodes by its locale's default, windows-1252 in most). A UTF-8 byte order mark or HTTP
 * charset settles it: browsers ignore `<meta>` then.
 *
 * Bytes that are plain ASCII (below 0x80, without ISO-2022's ESC, SO and SI) read alike under every
 * ASCII-compatible encoding, so for them any such declaration — `ascii`, `windows-1252`, `shift_jis`… —
 * is as good as UTF-8, as no declaration is; ISO-2022-JP, UTF-16 and `replacement` stay refused.
 *
 * @example
 * ```ts
 * checkEncoding(new TextEncoder().encode('<meta charset="utf-8"><main>Grüße</main>')); // undefined
 * checkEncoding(new TextEncoder().encode('<meta charset="latin1"><main>Gr&uuml;&szlig;e</main>')); // undefined
 * checkEncoding(new TextEncoder().encode('<main>Grüße</main>'))?.message; // '… declares no character encoding …'
 * ```
 */
export function checkEncoding(
  bytes: Uint8Array,
  options: { contentType?: string | null } = {},
): Refusal | undefined {
  const sniff = sniffEncoding(bytes, options);
  const refuse = (message: string): Refusal => ({ code: 'encoding', message });
  let plain: boolean | undefined;
  const plainAscii = () => (plain ??= isPlainAscii(bytes));
  // Whether the encoding reads these bytes as UTF-8 does: UTF-8 itself, or plain ASCII under any ASCII-compatible one.
  const readsAsUtf8 = (encoding: string) =>
    encoding === 'utf-8' || (!ASCII_INCOMPATIBLE.has(encoding) && plainAscii());
  if (sniff.encoding === 'utf-8' && sniff.source !== 'meta') return undefined;
  if (sniff.source === 'bom')
    return refuse(
      `the page starts with a ${nameOf(sniff.encoding as string)} byte order mark: browsers decode it as ${nameOf(sniff.encoding as string)}, not as UTF-8`,
    );
  if (sniff.source === 'http') {
    // Browsers ignore every <meta> under an HTTP charset, so this settles it either way.
    if (readsAsUtf8(sniff.encoding as string)) return undefined;
    return refuse(
      `the page is served with \`Content-Type: ${options.contentType}\`: browsers decode it as ${nameOf(sniff.encoding as string)}, not as UTF-8`,
    );
  }
  if (sniff.source === 'meta' && !readsAsUtf8(sniff.encoding as string))
    return refuse(
      `the page declares the character encoding ${nameOf(sniff.encoding as string)} (at byte ${sniff.at}): browsers decode it as that, not as UTF-8`,
    );
  // The prescan's answer is tentative in the standard: a later <meta> naming another encoding still switches it.
  for (const later of metaDeclarations(bytes))
    if (!readsAsUtf8(later.encoding))
      return refuse(
        `the page declares the character encoding ${nameOf(later.encoding)} in a <meta> at byte ${later.at}, and browsers may switch to it there: Siegel verifies UTF-8 only`,
      );
  if (sniff.source === 'none' && !plainAscii())
    return refuse(
      `the page declares no character encoding in its first 1024 bytes and holds bytes beyond ASCII, which browsers then decode by their locale’s default (windows-1252 in most), not as UTF-8: ${ADD_META}`,
    );
  return undefined;
}
