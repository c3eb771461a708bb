import { crc32, inflateSync } from 'node:zlib';
import { invalidFormat } from '../api-error.js';
import type { Dimensions } from './file-metadata.js';
import { ascii } from './formats.js';
import { ANALYSIS_LIMITS, pastLimit } from './limits.js';

const { image_blocks: MAX_BLOCKS, xmp_bytes: MAX_XMP_BYTES } = ANALYSIS_LIMITS;

/** What an image's container holds that the service needs: its size and its XMP packet, if any. */
export interface ImageContainer {
  dimensions: Dimensions;
  xmp: Uint8Array | undefined;
}

/**
 * Walk an image's container and return its dimensions and its XMP packet: PNG `iTXt` `XML:com.adobe.xmp`,
 * JPEG APP1 `http://ns.adobe.com/xap/1.0/`, WebP `XMP ` chunk, GIF `XMP DataXMP` application extension.
 * The whole structure is checked, so a truncated or corrupt file is refused rather than half read. Each
 * walk is one pass over the file, and stops past `image_blocks` chunks, segments or blocks.
 *
 * @throws {ApiError} `INVALID_FORMAT` (422) when the container is truncated, malformed or too complex.
 */
export function readImageContainer(bytes: Uint8Array, mimeType: string): ImageContainer {
  switch (mimeType) {
    case 'image/png':
      return readPng(bytes);
    case 'image/jpeg':
      return readJpeg(bytes);
    case 'image/gif':
      return readGif(bytes);
    case 'image/webp':
      return readWebp(bytes);
    default:
      throw invalidFormat(`\`${mimeType}\` is not a supported image type`, 415);
  }
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function broken(format: string, why: string): never {
  throw invalidFormat(`This ${format} file is damaged or truncated: ${why}`);
}

/** Counts the blocks of one walk; past `image_blocks` the file is refused. */
function blockCounter(format: string, what: string): () => void {
  let count = 0;
  return () => {
    if (++count > MAX_BLOCKS) {
      throw pastLimit(
        'image_blocks',
        `This ${format} file has more than ${MAX_BLOCKS} ${what}; it is not read`,
      );
    }
  };
}

function readPng(bytes: Uint8Array): ImageContainer {
  const data = view(bytes);
  let offset = 8;
  let dimensions: Dimensions | undefined;
  let xmp: Uint8Array | undefined;
  const count = blockCounter('PNG', 'chunks');
  while (true) {
    count();
    if (offset + 12 > bytes.length) broken('PNG', 'it ends before its IEND chunk');
    const length = data.getUint32(offset);
    const type = ascii(bytes, offset + 4, 4);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length)
      broken('PNG', `chunk \`${type}\` runs past the end of the file`);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== data.getUint32(offset + 8 + length)) {
      broken('PNG', `chunk \`${type}\` has a wrong checksum`);
    }
    if (dimensions === undefined && type !== 'IHDR') broken('PNG', 'it does not start with IHDR');
    if (type === 'IHDR')
      dimensions = { width: data.getUint32(offset + 8), height: data.getUint32(offset + 12) };
    if (type === 'iTXt' && xmp === undefined) xmp = readPngXmp(body);
    if (type === 'IEND') break;
    offset = end;
  }
  if (dimensions === undefined) broken('PNG', 'it has no IHDR chunk');
  return { dimensions, xmp };
}

function readPngXmp(body: Uint8Array): Uint8Array | undefined {
  const keywordEnd = body.indexOf(0);
  if (keywordEnd === -1 || ascii(body, 0, keywordEnd) !== 'XML:com.adobe.xmp') return undefined;
  const compressed = body[keywordEnd + 1] === 1;
  const languageEnd = body.indexOf(0, keywordEnd + 3);
  const translatedEnd = languageEnd === -1 ? -1 : body.indexOf(0, languageEnd + 1);
  if (translatedEnd === -1) broken('PNG', 'its XMP chunk is malformed');
  const text = body.subarray(translatedEnd + 1);
  if (!compressed) return text;
  try {
    return inflateSync(text, { maxOutputLength: MAX_XMP_BYTES });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw pastLimit('xmp_bytes', `This PNG's compressed XMP inflates to more than ${MAX_XMP_BYTES} bytes`);
    }
    return broken('PNG', 'its compressed XMP chunk does not inflate');
  }
}

const JPEG_XMP_HEADER = 'http://ns.adobe.com/xap/1.0/\0';
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function readJpeg(bytes: Uint8Array): ImageContainer {
  const data = view(bytes);
  let offset = 2;
  let dimensions: Dimensions | undefined;
  let xmp: Uint8Array | undefined;
  let scanStart: number | undefined;
  const count = blockCounter('JPEG', 'segments before its image data');
  while (scanStart === undefined) {
    count();
    if (offset + 4 > bytes.length) broken('JPEG', 'it ends before its image data');
    if (bytes[offset] !== 0xff) broken('JPEG', `no marker at byte ${offset}`);
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      offset += 2;
      continue;
    }
    if (marker === 0xd9) broken('JPEG', 'it ends before its image data');
    const length = data.getUint16(offset + 2);
    const end = offset + 2 + length;
    if (length < 2 || end > bytes.length)
      broken('JPEG', `segment 0xFF${marker.toString(16)} runs past the end`);
    const body = bytes.subarray(offset + 4, end);
    if (marker === 0xe1 && xmp === undefined && ascii(body, 0, JPEG_XMP_HEADER.length) === JPEG_XMP_HEADER) {
      xmp = body.subarray(JPEG_XMP_HEADER.length);
    }
    if (JPEG_SOF.has(marker) && dimensions === undefined) {
      if (body.length < 5) broken('JPEG', 'its frame header is too short');
      dimensions = { height: data.getUint16(offset + 5), width: data.getUint16(offset + 7) };
    }
    if (marker === 0xda) scanStart = end;
    offset = end;
  }
  if (dimensions === undefined) broken('JPEG', 'it has no frame header');
  // Entropy-coded data never holds 0xFF 0xD9 (0xFF is stuffed): an end marker after the scan means it is whole.
  let end = bytes.length - 2;
  while (end >= scanStart && !(bytes[end] === 0xff && bytes[end + 1] === 0xd9)) end--;
  if (end < scanStart) broken('JPEG', 'it has no end-of-image marker after its image data');
  return { dimensions, xmp };
}

const GIF_XMP_ID = 'XMP DataXMP';

function readGif(bytes: Uint8Array): ImageContainer {
  if (bytes.length < 13) broken('GIF', 'its header is incomplete');
  const data = view(bytes);
  const dimensions = { width: data.getUint16(6, true), height: data.getUint16(8, true) };
  const flags = bytes[10] as number;
  let offset = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let xmp: Uint8Array | undefined;
  let images = 0;
  const count = blockCounter('GIF', 'blocks');
  const skipSubBlocks = (start: number): number => {
    let position = start;
    while (true) {
      if (position >= bytes.length) broken('GIF', 'a data block runs past the end');
      const size = bytes[position] as number;
      position += 1;
      if (size === 0) return position;
      position += size;
    }
  };
  while (true) {
    count();
    if (offset >= bytes.length) broken('GIF', 'it ends before its trailer');
    const introducer = bytes[offset];
    if (introducer === 0x3b) break;
    if (introducer === 0x21) {
      const label = bytes[offset + 1];
      const end = skipSubBlocks(offset + 2);
      if (
        xmp === undefined &&
        label === 0xff &&
        bytes[offset + 2] === 11 &&
        ascii(bytes, offset + 3, 11) === GIF_XMP_ID
      ) {
        xmp = readGifXmp(bytes, offset + 14, end);
      }
      offset = end;
      continue;
    }
    if (introducer === 0x2c) {
      if (offset + 10 > bytes.length) broken('GIF', 'an image descriptor is incomplete');
      const imageFlags = bytes[offset + 9] as number;
      offset += 10 + (imageFlags & 0x80 ? 3 * 2 ** ((imageFlags & 7) + 1) : 0) + 1;
      offset = skipSubBlocks(offset);
      images++;
      continue;
    }
    broken('GIF', `unexpected block 0x${(introducer ?? 0).toString(16)} at byte ${offset}`);
  }
  if (images === 0) broken('GIF', 'it holds no image');
  return { dimensions, xmp };
}

/**
 * The packet of a GIF `XMP DataXMP` extension whose data runs from `start` to `end`: the raw packet, then
 * XMP's 258-byte "magic trailer" (0x01 0xFF 0xFE … 0x00 0x00), which is what makes the packet walkable as
 * data blocks. The trailer is looked for inside this extension only, so every extension costs its own length.
 */
function readGifXmp(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const data = bytes.subarray(start, end);
  for (let at = data.indexOf(0x01); at !== -1 && at + 2 < data.length; at = data.indexOf(0x01, at + 1)) {
    // UTF-8 text never holds 0xFF or 0xFE: the first 0x01 0xFF 0xFE is where the trailer begins.
    if (data[at + 1] === 0xff && data[at + 2] === 0xfe) return data.subarray(0, at);
  }
  return broken('GIF', 'its XMP extension lacks the XMP magic trailer');
}

function readWebp(bytes: Uint8Array): ImageContainer {
  const data = view(bytes);
  const end = 8 + data.getUint32(4, true);
  if (end > bytes.length) broken('WebP', 'it is shorter than its RIFF header says');
  let offset = 12;
  let dimensions: Dimensions | undefined;
  let xmp: Uint8Array | undefined;
  let hasImage = false;
  const count = blockCounter('WebP', 'chunks');
  while (offset + 8 <= end) {
    count();
    const type = ascii(bytes, offset, 4);
    const size = data.getUint32(offset + 4, true);
    const bodyStart = offset + 8;
    if (bodyStart + size > end) broken('WebP', `chunk \`${type}\` runs past the end`);
    const body = bytes.subarray(bodyStart, bodyStart + size);
    if (type === 'VP8X' && size >= 10) {
      dimensions = { width: 1 + readUint24(body, 4), height: 1 + readUint24(body, 7) };
    } else if (type === 'VP8 ' && size >= 10) {
      if (body[3] !== 0x9d || body[4] !== 0x01 || body[5] !== 0x2a)
        broken('WebP', 'its VP8 frame is malformed');
      dimensions ??= { width: readUint16(body, 6) & 0x3fff, height: readUint16(body, 8) & 0x3fff };
      hasImage = true;
    } else if (type === 'VP8L' && size >= 5) {
      if (body[0] !== 0x2f) broken('WebP', 'its VP8L stream is malformed');
      const bits = readUint16(body, 1) | (readUint16(body, 3) << 16);
      dimensions ??= { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      hasImage = true;
    } else if (type === 'ANMF') {
      hasImage = true;
    } else if (type === 'XMP ' && xmp === undefined) {
      xmp = body;
    }
    offset = bodyStart + size + (size & 1);
  }
  if (dimensions === undefined || !hasImage) broken('WebP', 'it holds no image data');
  return { dimensions, xmp };
}

function readUint16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] as number) | ((bytes[offset + 1] as number) << 8);
}

function readUint24(bytes: Uint8Array, offset: number): number {
  return readUint16(bytes, offset) | ((bytes[offset + 2] as number) << 16);
}
