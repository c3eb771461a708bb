import { concat, latin1, utf8 } from '../bytes.js';
import { FormatError } from '../format-error.js';

const XMP_APPLICATION = 'XMP DataXMP';
/** Application identifiers of looping extensions, which some decoders expect right after the header. */
const LOOP_APPLICATIONS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);

/**
 * The XMP "magic trailer" (XMP Specification Part 3, 1.1.2): 0x01, then 0xFF down to 0x00, then the block
 * terminator — 258 bytes. A GIF decoder reads the raw packet before it as data sub-blocks; whatever length
 * byte it lands on in this ramp walks it to the terminator, so the packet needs no sub-block framing.
 */
const MAGIC_TRAILER = Uint8Array.from({ length: 258 }, (_, index) =>
  index === 0 ? 1 : index === 257 ? 0 : 256 - index,
);

/**
 * Put an XMP packet into a GIF as the `XMP DataXMP` application extension (XMP Specification Part 3,
 * 1.1.2): the packet as UTF-8 followed by the magic trailer, placed after the header blocks (logical screen
 * descriptor, global colour table, and a looping extension if one comes first) and before the first image.
 * Any XMP extension already there is dropped; a GIF87a file becomes GIF89a (extensions need 89a). Every
 * other block is kept byte for byte.
 *
 * @throws {FormatError} `damaged` when a block runs past the end or the trailer (0x3B) is missing.
 */
export function embedGifXmp(bytes: Uint8Array, packet: string): Uint8Array<ArrayBuffer> {
  if (bytes.length < 13) throw damaged('its header is incomplete');
  const flags = bytes[10] as number;
  const headerEnd = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  if (headerEnd > bytes.length) throw damaged('its global colour table is incomplete');
  const header = bytes.slice(0, headerEnd);
  header.set(utf8('GIF89a'), 0);
  const extension = concat([
    new Uint8Array([0x21, 0xff, 0x0b]),
    utf8(XMP_APPLICATION),
    utf8(packet),
    MAGIC_TRAILER,
  ]);
  const parts: Uint8Array[] = [header];
  let placed = false;
  let offset = headerEnd;
  while (true) {
    if (offset >= bytes.length) throw damaged('it ends before its trailer');
    const introducer = bytes[offset];
    if (introducer === 0x3b) break;
    let end: number;
    let application: string | undefined;
    if (introducer === 0x21) {
      if (bytes[offset + 1] === 0xff && bytes[offset + 2] === 11) application = latin1(bytes, offset + 3, 11);
      end = skipSubBlocks(bytes, offset + 2);
    } else if (introducer === 0x2c) {
      if (offset + 10 > bytes.length) throw damaged('an image descriptor is incomplete');
      const imageFlags = bytes[offset + 9] as number;
      end = skipSubBlocks(bytes, offset + 10 + (imageFlags & 0x80 ? 3 * 2 ** ((imageFlags & 7) + 1) : 0) + 1);
    } else {
      throw damaged(`unexpected block 0x${(introducer ?? 0).toString(16)} at byte ${offset}`);
    }
    const isLoop = application !== undefined && LOOP_APPLICATIONS.has(application);
    if (!placed && !(isLoop && parts.length === 1)) {
      parts.push(extension);
      placed = true;
    }
    if (application !== XMP_APPLICATION) parts.push(bytes.subarray(offset, end));
    offset = end;
  }
  if (!placed) parts.push(extension);
  parts.push(bytes.subarray(offset));
  return concat(parts);
}

/** Skip data sub-blocks from `start` (each a length byte and that many bytes) up to and past the 0 terminator. */
function skipSubBlocks(bytes: Uint8Array, start: number): number {
  let position = start;
  while (true) {
    if (position >= bytes.length) throw damaged('a data block runs past the end');
    const size = bytes[position] as number;
    position += 1 + size;
    if (size === 0) return position;
  }
}

function damaged(why: string): FormatError {
  return new FormatError('damaged', 'gif', `This GIF is damaged or truncated: ${why}`);
}
