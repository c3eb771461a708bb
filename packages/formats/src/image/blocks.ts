// What every image container walk shares: reading numbers, refusing damage, counting blocks, and inflating
// compressed metadata within the limits of `limits.ts`.
import { damaged } from '../format-error.js';
import { FORMAT_LIMITS, type FormatLimit, pastLimit } from '../limits.js';
import type { FormatPrimitives } from '../primitives.js';

const { image_blocks: MAX_BLOCKS, image_inflated_bytes: MAX_INFLATED } = FORMAT_LIMITS;

/** The metadata blocks of an image, raw, as its container holds them (read by `image-metadata.ts`). */
export interface ImageMetadataBlocks {
  /** XMP packets in file order (PNG text chunks and raw profiles, JPEG APP1, WebP `XMP `, GIF extension). */
  xmp: Uint8Array[];
  /** JPEG Extended XMP chunks (XMP part 3, 1.1.3.1), assembled only when the standard packet needs them. */
  extendedXmp: ExtendedXmpChunk[];
  /** EXIF blocks in file order: TIFF structures (`II*\0` or `MM\0*`), any `Exif\0\0` header removed. */
  exif: Uint8Array[];
  /** The first IPTC-IIM block (datasets, from a Photoshop IRB resource 0x0404 or a raw IIM profile). */
  iptc: Uint8Array | undefined;
  /** PNG text of the keywords read (`Author`, `Title`, `Description`), the default language, last one wins. */
  text: Partial<Record<PngTextKeyword, string>>;
  /**
   * The same keywords from `iTXt` chunks with a language tag (exiftool's `Author-de`): read where the file has
   * none without one; of several, the last one wins.
   */
  translatedText: Partial<Record<PngTextKeyword, string>>;
}

/** The PNG text keywords the service reads as fallbacks (exiftool's `PNG:Author`, `PNG:Title`, …). */
export type PngTextKeyword = 'Author' | 'Title' | 'Description';

/** One APP1 `http://ns.adobe.com/xmp/extension/` segment: its GUID, the full length, its offset, its data. */
export interface ExtendedXmpChunk {
  guid: string;
  fullLength: number;
  offset: number;
  data: Uint8Array;
}

export function emptyBlocks(): ImageMetadataBlocks {
  return { xmp: [], extendedXmp: [], exif: [], iptc: undefined, text: {}, translatedText: {} };
}

/** Adds an EXIF block (`stripExifHeader`'s answer), when it is one. */
export function addExif(blocks: ImageMetadataBlocks, tiff: Uint8Array | undefined): void {
  if (tiff !== undefined) blocks.exif.push(tiff);
}

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function broken(format: string, why: string): never {
  throw damaged(format.toLowerCase(), `This ${format} file is damaged or truncated: ${why}`);
}

/** Counts the blocks of one walk; past `image_blocks` the file is refused. */
export function blockCounter(format: string, what: string): () => void {
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

/** Adds an XMP packet, refusing past `xmp_packets` (each one is parsed, so their number is bounded too). */
export function addXmp(blocks: ImageMetadataBlocks, format: string, packet: Uint8Array): void {
  if (blocks.xmp.length >= FORMAT_LIMITS.xmp_packets) {
    throw pastLimit(
      'xmp_packets',
      `This ${format} file holds more than ${FORMAT_LIMITS.xmp_packets} XMP packets; it is not read`,
    );
  }
  blocks.xmp.push(packet);
}

/**
 * Inflates the zlib streams of one file, each to at most the bound it is given and all of them together to
 * `image_inflated_bytes`: `maxOutputLength` stops zlib as soon as the output would pass the bound, so a bomb
 * costs at most that much memory and the time to write it, never what it claims to hold.
 */
export class BoundedInflater {
  private total = 0;

  constructor(
    private readonly format: string,
    private readonly primitives: FormatPrimitives,
  ) {}

  /**
   * @param limit which of `FORMAT_LIMITS` bounds this stream; `max` its bytes (default that limit's value).
   * @throws {FormatError} with `limit` past a bound, without when the stream is not zlib.
   */
  inflate(data: Uint8Array, what: string, limit: FormatLimit & keyof typeof FORMAT_LIMITS): Uint8Array {
    const max = Math.min(FORMAT_LIMITS[limit], MAX_INFLATED - this.total);
    let out: Uint8Array | 'too-large';
    try {
      out = this.primitives.inflate(data, Math.max(1, max));
    } catch {
      broken(this.format, `its ${what} does not inflate`);
    }
    if (out === 'too-large') {
      if (max < FORMAT_LIMITS[limit]) {
        throw pastLimit(
          'image_inflated_bytes',
          `This ${this.format} file's compressed metadata inflates to more than ${MAX_INFLATED} bytes in all`,
        );
      }
      throw pastLimit(limit, `This ${this.format} file's ${what} inflates to more than ${max} bytes`);
    }
    this.total += out.length;
    return out;
  }
}
