// PNG (ISO/IEC 15948, the PNG specification 3rd edition): the chunk walk, and the metadata its text chunks and
// `eXIf` hold — read as exiftool reads them (`Image::ExifTool::PNG`), since that is the reference users check.

import { crc32, hexBytes, latin1 } from '../bytes.js';
import type { Dimensions } from '../file-metadata.js';
import type { FormatPrimitives } from '../primitives.js';
import {
  addExif,
  addXmp,
  BoundedInflater,
  blockCounter,
  broken,
  emptyBlocks,
  type ImageMetadataBlocks,
  type PngTextKeyword,
  view,
} from './blocks.js';
import { stripExifHeader } from './exif.js';
import { iimOfIrb } from './iptc.js';

const XMP_KEYWORD = 'XML:com.adobe.xmp';
const JPEG_XMP_HEADER = 'http://ns.adobe.com/xap/1.0/\0';
const RAW_PROFILE = 'Raw profile type ';
/** The keywords whose text is read; every other text chunk is skipped unread (and never inflated). */
const KEYWORDS: ReadonlySet<string> = new Set([
  XMP_KEYWORD,
  'Author',
  'Title',
  'Description',
  ...['xmp', 'exif', 'APP1', 'iptc', '8bim'].map((type) => RAW_PROFILE + type),
]);
const windows1252 = new TextDecoder('windows-1252'); // what exiftool means by "Latin" for tEXt and zTXt
const utf8 = new TextDecoder();

/**
 * Walk a PNG: its dimensions, and every metadata block its `tEXt`, `zTXt`, `iTXt` and `eXIf` chunks hold —
 * XMP under the keyword `XML:com.adobe.xmp` in any of the three text chunks (libvips and sharp write `zTXt`),
 * ImageMagick's hex "Raw profile type xmp|exif|APP1|iptc|8bim", and the `Author`, `Title` and `Description`
 * text (in `iTXt` with or without a language tag). Compressed text is inflated only for those keywords, each within its bound.
 */
export function readPng(
  bytes: Uint8Array,
  primitives: FormatPrimitives,
): { dimensions: Dimensions; blocks: ImageMetadataBlocks } {
  const data = view(bytes);
  const blocks = emptyBlocks();
  const inflater = new BoundedInflater('PNG', primitives);
  const checksum = primitives.crc32 ?? crc32;
  let offset = 8;
  let dimensions: Dimensions | undefined;
  const count = blockCounter('PNG', 'chunks');
  while (true) {
    count();
    if (offset + 12 > bytes.length) broken('PNG', 'it ends before its IEND chunk');
    const length = data.getUint32(offset);
    const type = latin1(bytes, offset + 4, 4);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length)
      broken('PNG', `chunk \`${type}\` runs past the end of the file`);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (checksum(bytes.subarray(offset + 4, offset + 8 + length)) !== data.getUint32(offset + 8 + length)) {
      broken('PNG', `chunk \`${type}\` has a wrong checksum`);
    }
    if (dimensions === undefined && type !== 'IHDR') broken('PNG', 'it does not start with IHDR');
    if (type === 'IHDR')
      dimensions = { width: data.getUint32(offset + 8), height: data.getUint32(offset + 12) };
    else if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt')
      readTextChunk(type, body, blocks, inflater);
    else if (type === 'eXIf') addExif(blocks, stripExifHeader(body));
    if (type === 'IEND') break;
    offset = end;
  }
  if (dimensions === undefined) broken('PNG', 'it has no IHDR chunk');
  return { dimensions, blocks };
}

/** The keyword as exiftool looks it up: as written, or with its first letter capitalised (`author`). */
function knownKeyword(keyword: string): string | undefined {
  if (KEYWORDS.has(keyword)) return keyword;
  const capitalised = keyword.charAt(0).toUpperCase() + keyword.slice(1);
  return KEYWORDS.has(capitalised) ? capitalised : undefined;
}

function readTextChunk(
  type: 'tEXt' | 'zTXt' | 'iTXt',
  body: Uint8Array,
  blocks: ImageMetadataBlocks,
  inflater: BoundedInflater,
): void {
  const keywordEnd = body.indexOf(0);
  if (keywordEnd === -1) return; // no keyword: exiftool reads nothing from it either
  const keyword = knownKeyword(latin1(body, 0, keywordEnd));
  if (keyword === undefined) return;
  let value: Uint8Array;
  let compressed = false;
  let translated = false;
  if (type === 'tEXt') {
    value = body.subarray(keywordEnd + 1);
  } else if (type === 'zTXt') {
    if (body[keywordEnd + 1] !== 0) return; // method 0 (zlib) is the only one; exiftool leaves others unread
    value = body.subarray(keywordEnd + 2);
    compressed = true;
  } else {
    const languageEnd = body.indexOf(0, keywordEnd + 3);
    const translatedEnd = languageEnd === -1 ? -1 : body.indexOf(0, languageEnd + 1);
    if (translatedEnd === -1) broken('PNG', `its \`iTXt\` chunk \`${keyword}\` is malformed`);
    // A language tag makes another tag for exiftool (`Author-de`): read for the text keywords where no
    // untagged one is (exiftool and Windows show it); XMP and profiles with one are not read.
    translated = languageEnd !== keywordEnd + 3;
    if (translated && !isTextKeyword(keyword)) return;
    compressed = body[keywordEnd + 1] === 1;
    if (compressed && body[keywordEnd + 2] !== 0) return;
    value = body.subarray(translatedEnd + 1);
  }
  const what = `\`${type}\` chunk \`${keyword}\``;
  if (keyword === XMP_KEYWORD) {
    addXmp(blocks, 'PNG', compressed ? inflater.inflate(value, what, 'xmp_bytes') : value);
    return;
  }
  if (compressed) value = inflater.inflate(value, what, 'image_text_bytes');
  if (keyword.startsWith(RAW_PROFILE)) {
    readRawProfile(keyword.slice(RAW_PROFILE.length), value, blocks);
    return;
  }
  (translated ? blocks.translatedText : blocks.text)[keyword as PngTextKeyword] = (
    type === 'iTXt' ? utf8 : windows1252
  ).decode(value);
}

function isTextKeyword(keyword: string): keyword is PngTextKeyword {
  return keyword === 'Author' || keyword === 'Title' || keyword === 'Description';
}

/**
 * ImageMagick's raw profile: `\n{type}\n{spaces}{length}\n{hex, in lines of 72}`. As exiftool's
 * `ProcessProfile`, the hex is what counts (a wrong length is only a warning there), and an `iptc` profile
 * is either IPTC-IIM itself (it starts with 0x1C) or a Photoshop resource block holding it.
 */
function readRawProfile(type: string, value: Uint8Array, blocks: ImageMetadataBlocks): void {
  // exiftool's pattern, on the first 512 characters only: its `.*?` and `\s*` backtrack, which over a
  // whole chunk of line breaks would take time growing with the square of its length.
  const match = /^\n.*?\n\s*\d+\n/s.exec(latin1(value, 0, 512));
  if (match === null) return;
  const hex = latin1(value, match[0].length);
  const data = hexBytes(hex.replace(/\s+/g, ''));
  if (type === 'xmp') {
    addXmp(blocks, 'PNG', data);
  } else if (type === 'iptc' || type === '8bim') {
    blocks.iptc ??= type === 'iptc' && data[0] === 0x1c ? data : iimOfIrb(data);
  } else if (latin1(data, 0, JPEG_XMP_HEADER.length) === JPEG_XMP_HEADER) {
    addXmp(blocks, 'PNG', data.subarray(JPEG_XMP_HEADER.length)); // an `APP1` (or `exif`) profile of XMP
  } else {
    addExif(blocks, stripExifHeader(data));
  }
}
