// EXIF (CIPA DC-008, a TIFF 6.0 structure): the IFD0 fields the service reads, `Artist` (0x013B),
// `ImageDescription` (0x010E) and Windows' `XPAuthor` (0x9C9D), from JPEG APP1 `Exif`, PNG `eXIf` and raw
// profiles, and the WebP `EXIF` chunk.
import { latin1 } from '../bytes.js';

/** What the service reads of EXIF. */
export interface ExifFields {
  artist: string | undefined;
  imageDescription: string | undefined;
  /** Windows' "Authors" (Explorer's Details tab), several names separated by `;` as Windows joins them. */
  xpAuthor: string | undefined;
}

const ARTIST = 0x013b;
const IMAGE_DESCRIPTION = 0x010e;
const XP_AUTHOR = 0x9c9d;
const ucs2 = new TextDecoder('utf-16le');
const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin = new TextDecoder('windows-1252');

/**
 * The TIFF structure of an EXIF block: without the `Exif\0\0` header some writers put before it (the JPEG
 * APP1 form, which exiftool also accepts in PNG `eXIf` and WebP `EXIF`); `undefined` when it is not TIFF.
 */
export function stripExifHeader(data: Uint8Array): Uint8Array | undefined {
  const tiff = latin1(data, 0, 6) === 'Exif\0\0' ? data.subarray(6) : data;
  const order = latin1(tiff, 0, 4);
  return order === 'II*\0' || order === 'MM\0*' ? tiff : undefined;
}

/**
 * `Artist`, `ImageDescription` and `XPAuthor` of IFD0. The first two are "ASCII" by the standard, but writers
 * put UTF-8 there (exiftool does): read as UTF-8 when they are valid UTF-8, else as Latin; cut at the first
 * NUL as exiftool cuts a string. `XPAuthor` is UCS-2 little-endian whatever the block's byte order (Windows
 * writes it so; exiftool reads it so), ended by a NUL character. A malformed directory yields nothing (EXIF
 * is a fallback; a damaged one does not refuse the image). The walk reads one directory of at most 65 535
 * entries: linear in the block.
 */
export function readExif(tiff: Uint8Array): ExifFields {
  const fields: ExifFields = { artist: undefined, imageDescription: undefined, xpAuthor: undefined };
  if (tiff.length < 8) return fields;
  const little = tiff[0] === 0x49;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return fields;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + 12 * i;
    if (entry + 12 > tiff.length) break;
    const tag = view.getUint16(entry, little);
    if (tag !== ARTIST && tag !== IMAGE_DESCRIPTION && tag !== XP_AUTHOR) continue;
    const type = view.getUint16(entry + 2, little);
    if (type !== 2 && type !== 7 && type !== 1) continue; // ASCII, UNDEFINED or BYTE: text in any case
    const count = view.getUint32(entry + 4, little);
    const start = count <= 4 ? entry + 8 : view.getUint32(entry + 8, little);
    if (start + count > tiff.length) continue;
    const value = tiff.subarray(start, start + count);
    if (tag === XP_AUTHOR) {
      const text = ucs2.decode(value.subarray(0, count - (count % 2)));
      const nul = text.indexOf('\0');
      fields.xpAuthor ??= nul === -1 ? text : text.slice(0, nul);
      continue;
    }
    const nul = value.indexOf(0);
    const text = decode(nul === -1 ? value : value.subarray(0, nul));
    if (tag === ARTIST) fields.artist ??= text;
    else fields.imageDescription ??= text;
  }
  return fields;
}

function decode(value: Uint8Array): string {
  try {
    return utf8.decode(value);
  } catch {
    return latin.decode(value);
  }
}
