// JPEG (ITU T.81, JFIF): the segment walk up to the image data, and the metadata segments before it —
// APP1 XMP and Extended XMP (XMP Specification Part 3, 1.1.3), APP1 Exif, APP13 Photoshop IRB (IPTC).

import { concat, latin1 } from '../bytes.js';
import type { Dimensions } from '../file-metadata.js';
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
import { iimOfIrb } from './iptc.js';

const XMP_HEADER = 'http://ns.adobe.com/xap/1.0/\0';
const EXTENDED_XMP_HEADER = 'http://ns.adobe.com/xmp/extension/\0';
const PHOTOSHOP_HEADERS = ['Photoshop 3.0\0', 'Adobe_Photoshop2.5:'];
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * Walk a JPEG up to its scan: its dimensions, its metadata segments, and that it ends with an end marker.
 * Consecutive APP13 Photoshop segments are one resource block split over segments (Photoshop writes them so,
 * exiftool joins them): their data is joined before IPTC is looked for.
 */
export function readJpeg(bytes: Uint8Array): { dimensions: Dimensions; blocks: ImageMetadataBlocks } {
  const data = view(bytes);
  const blocks = emptyBlocks();
  let offset = 2;
  let dimensions: Dimensions | undefined;
  let scanStart: number | undefined;
  let photoshop: Uint8Array[] = [];
  let previousMarker = -1;
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
    if (marker !== 0xed || previousMarker !== 0xed) photoshop = readPhotoshop(photoshop, blocks);
    if (marker === 0xe1) readApp1(body, blocks);
    if (marker === 0xed) {
      const header = PHOTOSHOP_HEADERS.find((name) => latin1(body, 0, name.length) === name);
      if (header !== undefined) photoshop.push(body.subarray(header.length));
    }
    if (JPEG_SOF.has(marker) && dimensions === undefined) {
      if (body.length < 5) broken('JPEG', 'its frame header is too short');
      dimensions = { height: data.getUint16(offset + 5), width: data.getUint16(offset + 7) };
    }
    if (marker === 0xda) scanStart = end;
    previousMarker = marker;
    offset = end;
  }
  readPhotoshop(photoshop, blocks);
  if (dimensions === undefined) broken('JPEG', 'it has no frame header');
  // Entropy-coded data never holds 0xFF 0xD9 (0xFF is stuffed): an end marker after the scan means it is whole.
  let end = bytes.length - 2;
  while (end >= scanStart && !(bytes[end] === 0xff && bytes[end + 1] === 0xd9)) end--;
  if (end < scanStart) broken('JPEG', 'it has no end-of-image marker after its image data');
  return { dimensions, blocks };
}

function readApp1(body: Uint8Array, blocks: ImageMetadataBlocks): void {
  if (latin1(body, 0, XMP_HEADER.length) === XMP_HEADER) {
    addXmp(blocks, 'JPEG', body.subarray(XMP_HEADER.length));
  } else if (latin1(body, 0, EXTENDED_XMP_HEADER.length) === EXTENDED_XMP_HEADER) {
    // header(35) GUID(32, hex of the MD5 of the whole extension) full length(4) this chunk's offset(4) data
    const at = EXTENDED_XMP_HEADER.length;
    if (body.length <= at + 40) return; // exiftool: "Invalid extended XMP segment", not read
    const guid = latin1(body, at, 32);
    if (!/^[A-Za-z0-9]{32}$/.test(guid)) return;
    const fields = view(body);
    blocks.extendedXmp.push({
      guid,
      fullLength: fields.getUint32(at + 32),
      offset: fields.getUint32(at + 36),
      data: body.subarray(at + 40),
    });
  } else if (latin1(body, 0, 6) === 'Exif\0\0') {
    addExif(blocks, stripExifHeader(body));
  }
}

/** Look for IPTC in the Photoshop segments joined so far; the next run starts empty. */
function readPhotoshop(segments: Uint8Array[], blocks: ImageMetadataBlocks): Uint8Array[] {
  if (segments.length > 0 && blocks.iptc === undefined) {
    blocks.iptc = iimOfIrb(segments.length === 1 ? (segments[0] as Uint8Array) : concat(segments));
  }
  return [];
}
