import { concat, latin1, utf8, view } from '../bytes.js';
import { FormatError } from '../format-error.js';

const XMP_FLAG = 0x04;
const ALPHA_FLAG = 0x10;

interface RiffChunk {
  type: string;
  /** The whole chunk: header, body and its padding byte. */
  bytes: Uint8Array;
  body: Uint8Array;
}

/**
 * Put an XMP packet into a WebP as its `XMP ` chunk (WebP container specification, "Extended File Format"):
 * a simple file (one `VP8 ` or `VP8L` chunk) becomes an extended one — a `VP8X` chunk first, with the XMP
 * flag, the alpha flag of a lossless image that uses alpha, and the canvas size of the image — and an
 * extended file gets the XMP flag set. Any `XMP ` chunk already there is dropped; the new one goes last, as
 * the specification orders them. Odd-sized chunks are padded and the RIFF size is written anew; every other
 * chunk is kept byte for byte.
 *
 * @throws {FormatError} `damaged` when the RIFF structure is truncated or holds no image.
 */
export function embedWebpXmp(bytes: Uint8Array, packet: string): Uint8Array<ArrayBuffer> {
  const chunks = readChunks(bytes);
  const kept = chunks.filter((chunk) => chunk.type !== 'XMP ');
  let vp8x = kept.find((chunk) => chunk.type === 'VP8X');
  if (vp8x === undefined) {
    const image = kept.find((chunk) => chunk.type === 'VP8 ' || chunk.type === 'VP8L');
    if (image === undefined) throw damaged('it holds neither a VP8X nor a VP8/VP8L chunk');
    vp8x = extendedHeader(image);
    kept.unshift(vp8x);
  } else {
    if (vp8x.body.length < 10) throw damaged('its VP8X chunk is too short');
    const copy = new Uint8Array(vp8x.bytes);
    copy[8] = (copy[8] as number) | XMP_FLAG;
    kept[kept.indexOf(vp8x)] = { ...vp8x, bytes: copy };
  }
  kept.push(riffChunk('XMP ', utf8(packet)));
  const body = concat(kept.map((chunk) => chunk.bytes));
  const header = new Uint8Array(12);
  header.set(utf8('RIFF'), 0);
  view(header).setUint32(4, 4 + body.length, true);
  header.set(utf8('WEBP'), 8);
  return concat([header, body]);
}

function readChunks(bytes: Uint8Array): RiffChunk[] {
  if (bytes.length < 12) throw damaged('its RIFF header is incomplete');
  const data = view(bytes);
  const end = 8 + data.getUint32(4, true);
  if (end > bytes.length) throw damaged('it is shorter than its RIFF header says');
  const chunks: RiffChunk[] = [];
  let offset = 12;
  while (offset < end) {
    if (offset + 8 > end) throw damaged(`a chunk header at byte ${offset} is incomplete`);
    const type = latin1(bytes, offset, 4);
    const size = data.getUint32(offset + 4, true);
    const bodyEnd = offset + 8 + size;
    if (bodyEnd > end) throw damaged(`chunk \`${type}\` runs past the end`);
    const padded = Math.min(end, bodyEnd + (size & 1));
    const body = bytes.subarray(offset + 8, bodyEnd);
    // A chunk whose padding byte is missing at the very end gets one (the RIFF size is rewritten anyway).
    chunks.push({
      type,
      body,
      bytes:
        padded - offset === 8 + size + (size & 1)
          ? bytes.subarray(offset, padded)
          : riffChunk(type, body).bytes,
    });
    offset = padded;
  }
  return chunks;
}

/** A `VP8X` chunk for a simple file's image chunk: the XMP flag, alpha if used, the canvas size. */
function extendedHeader(image: RiffChunk): RiffChunk {
  const { width, height, alpha } = imageSize(image);
  const body = new Uint8Array(10);
  body[0] = XMP_FLAG | (alpha ? ALPHA_FLAG : 0);
  writeUint24(body, 4, width - 1);
  writeUint24(body, 7, height - 1);
  return riffChunk('VP8X', body);
}

/** The size of a `VP8 ` key frame (RFC 6386, 9.1) or a `VP8L` image (its header, bits 0–27), and its alpha hint. */
function imageSize(image: RiffChunk): { width: number; height: number; alpha: boolean } {
  const body = image.body;
  if (image.type === 'VP8 ') {
    if (body.length < 10 || body[3] !== 0x9d || body[4] !== 0x01 || body[5] !== 0x2a) {
      throw damaged('its VP8 frame header is malformed');
    }
    const data = view(body);
    return {
      width: data.getUint16(6, true) & 0x3fff,
      height: data.getUint16(8, true) & 0x3fff,
      alpha: false,
    };
  }
  if (body.length < 5 || body[0] !== 0x2f) throw damaged('its VP8L header is malformed');
  const bits = view(body).getUint32(1, true);
  return {
    width: (bits & 0x3fff) + 1,
    height: ((bits >>> 14) & 0x3fff) + 1,
    alpha: ((bits >>> 28) & 1) === 1,
  };
}

function riffChunk(type: string, body: Uint8Array): RiffChunk {
  const bytes = new Uint8Array(8 + body.length + (body.length & 1));
  bytes.set(utf8(type), 0);
  view(bytes).setUint32(4, body.length, true);
  bytes.set(body, 8);
  return { type, body: bytes.subarray(8, 8 + body.length), bytes };
}

function writeUint24(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >>> 8) & 0xff;
  bytes[offset + 2] = (value >>> 16) & 0xff;
}

function damaged(why: string): FormatError {
  return new FormatError('damaged', 'webp', `This WebP is damaged or truncated: ${why}`);
}
