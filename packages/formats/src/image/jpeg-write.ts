import { concat, latin1, utf8, view } from '../bytes.js';
import { EmbedInputError, FormatError } from '../format-error.js';

const XMP_HEADER = 'http://ns.adobe.com/xap/1.0/\0';
const EXTENDED_XMP_HEADER = 'http://ns.adobe.com/xmp/extension/\0';
const APP0 = 0xe0;
const APP1 = 0xe1;
const SOS = 0xda;
const EOI = 0xd9;
/** A segment's length field counts itself: 65 535 at most, so the packet gets 65 533 minus the header. */
const MAX_PACKET_BYTES = 0xffff - 2 - XMP_HEADER.length;

/**
 * Put an XMP packet into a JPEG as an APP1 segment with the XMP namespace header (XMP Specification Part 3,
 * 1.1.3): where the first XMP segment was, else after the leading APP0 (JFIF) and APP1 (Exif) segments.
 * Every segment that held XMP before — the standard packet and Extended XMP, which the new packet does not
 * name — is dropped; everything else, and all of the image data from the scan on, is kept byte for byte.
 *
 * @throws {FormatError} `damaged` when a segment runs past the end or the scan is missing;
 *   `INVALID_AUTHOR` when the packet does not fit in one segment (64 KiB).
 */
export function embedJpegXmp(bytes: Uint8Array, packet: string): Uint8Array<ArrayBuffer> {
  const xmp = utf8(packet);
  if (xmp.length > MAX_PACKET_BYTES) {
    throw new EmbedInputError(
      'INVALID_AUTHOR',
      `The XMP packet is ${xmp.length} bytes; a JPEG segment holds at most ${MAX_PACKET_BYTES}: shorten the names or title`,
    );
  }
  const segment = new Uint8Array(4 + XMP_HEADER.length + xmp.length);
  segment.set([0xff, APP1], 0);
  view(segment).setUint16(2, segment.length - 2);
  segment.set(utf8(XMP_HEADER), 4);
  segment.set(xmp, 4 + XMP_HEADER.length);

  const data = view(bytes);
  const parts: Uint8Array[] = [bytes.subarray(0, 2)];
  let placed = false;
  let offset = 2;
  while (true) {
    // Fill bytes (0xFF runs) may stand before a marker.
    while (bytes[offset] === 0xff && bytes[offset + 1] === 0xff) offset++;
    if (offset + 2 > bytes.length || bytes[offset] !== 0xff) throw damaged(`no marker at byte ${offset}`);
    const marker = bytes[offset + 1] as number;
    if (marker === SOS || marker === EOI) break;
    // Markers without a length: TEM and RST0–7 (none belongs before the scan, but they are harmless).
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      parts.push(bytes.subarray(offset, offset + 2));
      offset += 2;
      continue;
    }
    if (offset + 4 > bytes.length) throw damaged('it ends inside a segment header');
    const end = offset + 2 + data.getUint16(offset + 2);
    if (end > bytes.length || end < offset + 4)
      throw damaged(`segment 0x${marker.toString(16)} runs past the end`);
    const isXmp = marker === APP1 && isXmpSegment(bytes.subarray(offset + 4, end));
    if (!placed && (isXmp || (marker !== APP0 && marker !== APP1))) {
      parts.push(segment);
      placed = true;
    }
    if (!isXmp) parts.push(bytes.subarray(offset, end));
    offset = end;
  }
  if (bytes[offset + 1] !== SOS) throw damaged('it has no image scan');
  if (!placed) parts.push(segment);
  parts.push(bytes.subarray(offset));
  return concat(parts);
}

function isXmpSegment(body: Uint8Array): boolean {
  const head = latin1(body, 0, EXTENDED_XMP_HEADER.length);
  return head.startsWith(XMP_HEADER) || head === EXTENDED_XMP_HEADER;
}

function damaged(why: string): FormatError {
  return new FormatError('damaged', 'jpeg', `This JPEG is damaged or truncated: ${why}`);
}
