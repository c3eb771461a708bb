import { concat, crc32, latin1, utf8, view } from '../bytes.js';
import { FormatError } from '../format-error.js';

const XMP_KEYWORD = 'XML:com.adobe.xmp';
const RAW_XMP_KEYWORD = 'Raw profile type xmp';
const SIGNATURE_LENGTH = 8;

/**
 * Put an XMP packet into a PNG as an uncompressed `iTXt` chunk with the keyword `XML:com.adobe.xmp` (XMP
 * Specification Part 3, 1.1.5), right after `IHDR` (text chunks may stand anywhere before `IEND`). Every chunk that
 * held XMP before — `iTXt`, `zTXt` or `tEXt` under that keyword, ImageMagick's `Raw profile type xmp` — is
 * dropped, so readers see one packet; every other chunk is kept byte for byte.
 *
 * @throws {FormatError} `damaged` when a chunk runs past the end, a checksum is wrong or `IEND` is missing.
 */
export function embedPngXmp(bytes: Uint8Array, packet: string): Uint8Array<ArrayBuffer> {
  const data = view(bytes);
  const parts: Uint8Array[] = [bytes.subarray(0, SIGNATURE_LENGTH)];
  const xmpChunk = pngChunk('iTXt', concat([utf8(`${XMP_KEYWORD}\0\0\0\0\0`), utf8(packet)]));
  let offset = SIGNATURE_LENGTH;
  while (true) {
    if (offset + 12 > bytes.length) throw damaged('it ends before its IEND chunk');
    const length = data.getUint32(offset);
    const type = latin1(bytes, offset + 4, 4);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length)
      throw damaged(`chunk \`${type}\` runs past the end of the file`);
    if (crc32(bytes.subarray(offset + 4, end - 4)) !== data.getUint32(end - 4)) {
      throw damaged(`chunk \`${type}\` has a wrong checksum`);
    }
    if (offset === SIGNATURE_LENGTH && type !== 'IHDR') throw damaged('it does not start with IHDR');
    if (!isXmpChunk(type, bytes.subarray(offset + 8, offset + 8 + length))) {
      parts.push(bytes.subarray(offset, end));
      if (type === 'IHDR') parts.push(xmpChunk);
    }
    offset = end;
    if (type === 'IEND') break;
  }
  // Bytes after IEND are not part of the PNG; they are kept as they were.
  parts.push(bytes.subarray(offset));
  return concat(parts);
}

/** A PNG chunk: length, type, data, CRC of type and data. */
function pngChunk(type: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const chunk = new Uint8Array(12 + body.length);
  const data = view(chunk);
  data.setUint32(0, body.length);
  chunk.set(utf8(type), 4);
  chunk.set(body, 8);
  data.setUint32(8 + body.length, crc32(chunk.subarray(4, 8 + body.length)));
  return chunk;
}

function isXmpChunk(type: string, body: Uint8Array): boolean {
  if (type !== 'iTXt' && type !== 'zTXt' && type !== 'tEXt') return false;
  const keywordEnd = body.indexOf(0);
  const keyword = latin1(body, 0, keywordEnd === -1 ? 0 : keywordEnd);
  return keyword === XMP_KEYWORD || keyword === RAW_XMP_KEYWORD;
}

function damaged(why: string): FormatError {
  return new FormatError('damaged', 'png', `This PNG is damaged or truncated: ${why}`);
}
