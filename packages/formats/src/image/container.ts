import { latin1 } from '../bytes.js';
import type { Dimensions } from '../file-metadata.js';
import { unsupported } from '../format-error.js';
import { type FormatPrimitives, webPrimitives } from '../primitives.js';
import {
  addExif,
  addXmp,
  blockCounter,
  broken,
  emptyBlocks,
  type ImageMetadataBlocks,
  view,
} from './blocks.js';
import { stripExifHeader } from './exif.js';
import { readJpeg } from './jpeg.js';
import { readPng } from './png.js';

/** What an image's container holds that the service needs: its size and its metadata blocks. */
export interface ImageContainer {
  dimensions: Dimensions;
  blocks: ImageMetadataBlocks;
}

/**
 * Walk an image's container and return its dimensions and its metadata blocks (XMP, EXIF, IPTC, PNG text):
 * PNG text chunks and `eXIf` (`image-png.ts`), JPEG APP1 and APP13 (`image-jpeg.ts`), WebP `XMP ` and `EXIF`
 * chunks, GIF `XMP DataXMP` application extension. The whole structure is checked, so a truncated or corrupt
 * file is refused rather than half read. Each walk is one pass over the file, and stops past `image_blocks`
 * chunks, segments or blocks.
 *
 * @throws {FormatError} `damaged` when the container is truncated, malformed or too complex.
 */
export function readImageContainer(
  bytes: Uint8Array,
  mimeType: string,
  primitives: FormatPrimitives = webPrimitives,
): ImageContainer {
  switch (mimeType) {
    case 'image/png':
      return readPng(bytes, primitives);
    case 'image/jpeg':
      return readJpeg(bytes);
    case 'image/gif':
      return readGif(bytes);
    case 'image/webp':
      return readWebp(bytes);
    default:
      throw unsupported('image', `\`${mimeType}\` is not a supported image type`);
  }
}

const GIF_XMP_ID = 'XMP DataXMP';

function readGif(bytes: Uint8Array): ImageContainer {
  if (bytes.length < 13) broken('GIF', 'its header is incomplete');
  const data = view(bytes);
  const dimensions = { width: data.getUint16(6, true), height: data.getUint16(8, true) };
  const flags = bytes[10] as number;
  let offset = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const blocks = emptyBlocks();
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
      if (label === 0xff && bytes[offset + 2] === 11 && latin1(bytes, offset + 3, 11) === GIF_XMP_ID) {
        addXmp(blocks, 'GIF', readGifXmp(bytes, offset + 14, end));
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
  return { dimensions, blocks };
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
  const blocks = emptyBlocks();
  let hasImage = false;
  const count = blockCounter('WebP', 'chunks');
  while (offset + 8 <= end) {
    count();
    const type = latin1(bytes, offset, 4);
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
    } else if (type === 'XMP ') {
      addXmp(blocks, 'WebP', body);
    } else if (type === 'EXIF') {
      addExif(blocks, stripExifHeader(body));
    }
    offset = bodyStart + size + (size & 1);
  }
  if (dimensions === undefined || !hasImage) broken('WebP', 'it holds no image data');
  return { dimensions, blocks };
}

function readUint16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] as number) | ((bytes[offset + 1] as number) << 8);
}

function readUint24(bytes: Uint8Array, offset: number): number {
  return readUint16(bytes, offset) | ((bytes[offset + 2] as number) << 16);
}
