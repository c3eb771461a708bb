// The character encoding a browser reads a page's bytes in, decided as the WHATWG HTML standard's
// "encoding sniffing algorithm" decides it: a byte order mark, then the HTTP `Content-Type` charset, then
// the prescan of the first 1024 bytes for `<meta charset>` / `<meta http-equiv="content-type">` (and an
// XML declaration). Siegel signs and verifies UTF-8 only, so `checkEncoding` is the one rule every signer
// and verifier applies to the bytes before it reads them as UTF-8: a page a browser would decode otherwise
// is not verifiable (`page.encoding`) — unless its bytes are plain ASCII and the encoding is one that reads
// them exactly as UTF-8 does. Pure, no Node built-ins: the browser verify script bundles it.
//
// The prescan (encoding-prescan.ts) is our own, not taken from `html-encoding-sniffer`: that package always answers with a
// fallback encoding, reads only the first declaration, and brings a TextDecoder polyfill along (+25 KB in
// the verify script). The rule needs every `<meta>` declaration in the page with its offset — Chromium still
// switches to one found after 1024 bytes, also in `<body>` — and whether anything was declared at all.
// The label → encoding table of the Encoding Standard comes from `@exodus/bytes` (3 KB in the bundle).
import { getBOMEncoding } from '@exodus/bytes/encoding-lite.js';
import type { Refusal } from './coverage.js';
import { encodingOfLabel, metaDeclarations, prescanEncoding } from './encoding-prescan.js';

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
