// PDFDocEncoding (ISO 32000-2, Annex D.3) where it differs from Latin-1; 0x7F, 0x9F and 0xAD are undefined.
const PDF_DOC_DIFFERENCES: Record<number, number> = {
  24: 0x02d8,
  25: 0x02c7,
  26: 0x02c6,
  27: 0x02d9,
  28: 0x02dd,
  29: 0x02db,
  30: 0x02da,
  31: 0x02dc,
  128: 0x2022,
  129: 0x2020,
  130: 0x2021,
  131: 0x2026,
  132: 0x2014,
  133: 0x2013,
  134: 0x0192,
  135: 0x2044,
  136: 0x2039,
  137: 0x203a,
  138: 0x2212,
  139: 0x2030,
  140: 0x201e,
  141: 0x201c,
  142: 0x201d,
  143: 0x2018,
  144: 0x2019,
  145: 0x201a,
  146: 0x2122,
  147: 0xfb01,
  148: 0xfb02,
  149: 0x0141,
  150: 0x0152,
  151: 0x0160,
  152: 0x0178,
  153: 0x017d,
  154: 0x0131,
  155: 0x0142,
  156: 0x0153,
  157: 0x0161,
  158: 0x017e,
  160: 0x20ac,
  127: 0xfffd,
  159: 0xfffd,
  173: 0xfffd,
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decode a PDF text string: UTF-16BE after the `FE FF` byte-order mark (UTF-16LE after `FF FE`, which some
 * writers emit), UTF-8 after `EF BB BF` (PDF 2.0); without a mark, UTF-8 when the bytes hold a multi-byte
 * UTF-8 sequence and are valid UTF-8 throughout, else PDFDocEncoding.
 *
 * The unmarked UTF-8 is what Ghostscript's `pdfmark` writes (a `/DOCINFO` with `(Björn)` from a UTF-8 source
 * keeps its bytes): exiftool and pdf.js show it as PDFDocEncoding, `BjÃ¶rn`, which is not the name its
 * author typed, and which would be signed into a public event. PDFDocEncoding text is valid UTF-8 with a
 * multi-byte sequence only where a letter from `Â`–`ô` stands right before the signs at 0x80–0xBF (`•`, `€`,
 * `©`, `¶`, …) in the runs UTF-8 asks for (`Ã¶`): no name or title is written so; it is the very look of
 * UTF-8 read one byte per character.
 *
 * @example
 * ```ts
 * decodePdfText(Uint8Array.of(0xfe, 0xff, 0x00, 0x4a)); // 'J'
 * decodePdfText(Uint8Array.of(0xa0));                   // '€' (PDFDocEncoding, not Latin-1)
 * decodePdfText(Uint8Array.of(0x42, 0xc3, 0xb6));       // 'Bö' (unmarked UTF-8, as Ghostscript writes it)
 * ```
 */
export function decodePdfText(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder().decode(bytes.subarray(3));
  const utf8 = bytes.some((byte) => byte >= 0x80) ? decodeUtf8(bytes) : undefined;
  if (utf8 !== undefined) return utf8;
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(PDF_DOC_DIFFERENCES[byte] ?? byte);
  return text;
}

/** `bytes` as UTF-8, or `undefined` when they are not valid UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
