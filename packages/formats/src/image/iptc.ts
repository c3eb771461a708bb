// IPTC-IIM (IPTC Information Interchange Model 4.2) and the Photoshop image resource blocks that carry it in
// JPEG APP13 and in ImageMagick's PNG profiles — read as exiftool reads them (`IPTC.pm`, `Photoshop.pm`).
import { latin1 } from '../bytes.js';

/** What the service reads of IPTC-IIM: By-line (2:80, repeatable), Object Name (2:05), Caption (2:120). */
export interface IptcFields {
  byLine: string[];
  objectName: string | undefined;
  caption: string | undefined;
}

/** Image resource types exiftool walks (`8BIM`; the rare others are ImageReady's, PhotoDeluxe's…). */
const RESOURCE_TYPES = new Set(['8BIM', 'PHUT', 'DCSR', 'AgHg', 'MeSa']);
/** Photoshop's resource ID of an IPTC-NAA record. */
const IPTC_RESOURCE = 0x0404;

/**
 * The IPTC-IIM data of the first resource 0x0404 in a Photoshop image resource block: resources of
 * `type(4) id(2) name(Pascal, padded to even) size(4) data(padded to even)`, walked until one is malformed
 * (where exiftool stops too). Every step moves forward, so the walk is linear in the block.
 */
export function iimOfIrb(irb: Uint8Array): Uint8Array | undefined {
  const view = new DataView(irb.buffer, irb.byteOffset, irb.byteLength);
  let pos = 0;
  while (pos + 8 < irb.length) {
    if (!RESOURCE_TYPES.has(latin1(irb, pos, 4))) return undefined;
    const id = view.getUint16(pos + 4);
    const nameLength = irb[pos + 6] as number;
    pos += 7 + nameLength + (nameLength & 1 ? 0 : 1);
    if (pos + 4 > irb.length) return undefined;
    const size = view.getUint32(pos);
    pos += 4;
    if (pos + size > irb.length) return undefined;
    if (id === IPTC_RESOURCE) return irb.subarray(pos, pos + size);
    pos += size + (size & 1);
  }
  return undefined;
}

const utf8 = new TextDecoder();
const latin = new TextDecoder('windows-1252');

/**
 * By-line, Object Name and Caption-Abstract of IPTC-IIM datasets (`0x1C record dataset length data`, a length
 * with its top bit set giving the size of a longer length). Text is UTF-8 when 1:90 Coded Character Set is
 * `ESC % G`, else Latin (Windows-1252), as exiftool's default `CharsetIPTC`. Trailing NULs are dropped; the
 * walk stops at the first malformed dataset, keeping what came before.
 */
export function readIptc(iim: Uint8Array): IptcFields {
  const fields: IptcFields = { byLine: [], objectName: undefined, caption: undefined };
  let decoder = latin;
  let pos = 0;
  while (pos + 5 <= iim.length && iim[pos] === 0x1c) {
    const record = iim[pos + 1] as number;
    const dataset = iim[pos + 2] as number;
    let length = ((iim[pos + 3] as number) << 8) | (iim[pos + 4] as number);
    pos += 5;
    if (length & 0x8000) {
      const size = length & 0x7fff;
      if (size > 4 || pos + size > iim.length) break; // a length past 4 bytes is past any real file
      length = 0;
      for (let i = 0; i < size; i++) length = length * 256 + (iim[pos + i] as number);
      pos += size;
    }
    if (pos + length > iim.length) break;
    let value = iim.subarray(pos, pos + length);
    pos += length;
    let end = value.length;
    while (end > 0 && value[end - 1] === 0) end--;
    value = value.subarray(0, end);
    if (record === 1 && dataset === 90) {
      decoder = latin1(value, 0, 3) === '\x1b%G' ? utf8 : latin;
    } else if (record === 2) {
      if (dataset === 80 && fields.byLine.length < 1000) fields.byLine.push(decoder.decode(value));
      else if (dataset === 5) fields.objectName ??= decoder.decode(value);
      else if (dataset === 120) fields.caption ??= decoder.decode(value);
    }
  }
  return fields;
}
