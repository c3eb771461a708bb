// An image's author, title and description from its metadata blocks, in the order the docs' author table
// lists (docs/server-api.md): XMP first, then the older standards writers and CMSs still use.
import { cleanText, selectAuthors } from '../author.js';
import { concat } from '../bytes.js';
import type { FoundMetadata } from '../file-metadata.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import { readXmp, type XmpMetadata } from '../xmp/read.js';
import type { ExtendedXmpChunk, ImageMetadataBlocks } from './blocks.js';
import { type ExifFields, readExif } from './exif.js';
import { readIptc } from './iptc.js';

/** Where an image's author was read, as `metadata.author_source` names it (exiftool's group and tag). */
export type ImageAuthorSource =
  | 'xmp:dc:creator'
  | 'iptc:By-line'
  | 'exif:Artist'
  | 'xmp:tiff:Artist'
  | 'exif:XPAuthor'
  | 'png:Author';

/**
 * Author, title and description of an image. The author is the first of these that names a real author:
 * XMP `dc:creator` (every entry), IPTC By-line (2:80, every one), EXIF `Artist`, XMP `tiff:Artist` (EXIF
 * `Artist` as XMP), EXIF `XPAuthor` (Windows' "Authors", split at `;` as Windows lists them), PNG `Author`
 * text (one without a language tag, else one with) — XMP is what current tools write; WordPress reads
 * By-line and then Artist; exiftool and Windows' Explorer read the other two. The title: XMP `dc:title`, IPTC Object
 * Name, PNG `Title`; the description: XMP `dc:description`, IPTC Caption-Abstract, EXIF `ImageDescription`,
 * PNG `Description`. With several XMP packets (or EXIF blocks) a later one's value replaces an earlier
 * one's, as exiftool reports them; JPEG Extended XMP is read after the standard packet that names its GUID.
 *
 * @throws {FormatError} for a malformed or oversized XMP packet.
 */
export function readImageMetadata(blocks: ImageMetadataBlocks): FoundMetadata {
  const xmp: XmpMetadata = { authors: [] };
  for (const packet of blocks.xmp) mergeXmp(xmp, readXmp(packet));
  const extension = assembleExtendedXmp(blocks.extendedXmp, xmp);
  if (extension !== undefined) mergeXmp(xmp, readXmp(extension));
  const iptc = blocks.iptc === undefined ? undefined : readIptc(blocks.iptc);
  // Of several EXIF blocks the last one's field wins (exiftool reports them so); IPTC: the first block.
  const exif: ExifFields = { artist: undefined, imageDescription: undefined, xpAuthor: undefined };
  for (const block of blocks.exif) {
    const fields = readExif(block);
    exif.artist = fields.artist ?? exif.artist;
    exif.imageDescription = fields.imageDescription ?? exif.imageDescription;
    exif.xpAuthor = fields.xpAuthor ?? exif.xpAuthor;
  }
  const candidates: Array<[ImageAuthorSource, unknown[]]> = [
    ['xmp:dc:creator', xmp.authors],
    ['iptc:By-line', iptc?.byLine ?? []],
    ['exif:Artist', [exif.artist]],
    ['xmp:tiff:Artist', [xmp.artist]],
    ['exif:XPAuthor', exif.xpAuthor?.split(';') ?? []],
    ['png:Author', [blocks.text.Author ?? blocks.translatedText.Author]],
  ];
  const found = candidates.find(([, names]) => selectAuthors(names).length > 0);
  return {
    authors: found === undefined ? [] : (found[1] as string[]),
    ...(found === undefined ? {} : { authorSource: found[0] }),
    title: firstText(xmp.title, iptc?.objectName, blocks.text.Title, blocks.translatedText.Title),
    description: firstText(
      xmp.description,
      iptc?.caption,
      exif.imageDescription,
      blocks.text.Description,
      blocks.translatedText.Description,
    ),
  };
}

function mergeXmp(into: XmpMetadata, next: XmpMetadata): void {
  if (next.authors.length > 0) into.authors = next.authors;
  into.title = next.title ?? into.title;
  into.description = next.description ?? into.description;
  into.hasExtendedXmp = next.hasExtendedXmp ?? into.hasExtendedXmp;
  into.artist = next.artist ?? into.artist;
}

function firstText(...values: Array<string | undefined>): string | undefined {
  return values.find((value) => cleanText(value) !== undefined);
}

/**
 * The Extended XMP whose GUID the standard packet names in `xmpNote:HasExtendedXMP`, its chunks put together
 * by offset from 0 to the full length (exiftool reads only that GUID, and only when no chunk is missing).
 * Its full length is bounded by `xmp_bytes` like any packet; a longer one is skipped when the standard packet
 * already names the author, and refused otherwise (the author may be in it).
 */
function assembleExtendedXmp(chunks: ExtendedXmpChunk[], standard: XmpMetadata): Uint8Array | undefined {
  const guid = standard.hasExtendedXmp;
  const mine = chunks.filter((chunk) => chunk.guid === guid);
  const first = mine[0];
  if (first === undefined) return undefined;
  const size = first.fullLength;
  if (size > FORMAT_LIMITS.xmp_bytes) {
    if (selectAuthors(standard.authors).length > 0) return undefined;
    throw pastLimit('xmp_bytes', `This JPEG's Extended XMP is larger than ${FORMAT_LIMITS.xmp_bytes} bytes`);
  }
  const byOffset = new Map(mine.map((chunk) => [chunk.offset, chunk.data]));
  const parts: Uint8Array[] = [];
  let offset = 0;
  while (offset < size) {
    const part = byOffset.get(offset);
    if (part === undefined) return undefined; // a chunk is missing: exiftool warns and reads none of it
    parts.push(part);
    offset += part.length; // every chunk holds at least one byte (image-jpeg.ts), so this ends
  }
  return offset === size ? concat(parts) : undefined;
}
