import { readAuthorFields } from './author-fields.js';
import { detectFormat, type EmbedFormat, isText } from './file-formats.js';
import { EmbedInputError, FormatError } from './format-error.js';
import { embedGifXmp } from './image/gif-write.js';
import { embedJpegXmp } from './image/jpeg-write.js';
import { embedPngXmp } from './image/png-write.js';
import { embedWebpXmp } from './image/webp-write.js';
import { embedPdf } from './pdf/write.js';
import { embedTextFrontmatter } from './text/write.js';
import { xmpPacket } from './xmp/packet.js';

/** Options of {@link embedAuthor}. */
export interface EmbedAuthorOptions {
  /** The author, or several in order (required; each trimmed, none empty or holding a control character). */
  author: string | readonly string[];
  /** The title (default: the file's own title is left as it is). */
  title?: string;
}

/**
 * Write the author (and title) into a file's own metadata, where the Siegel server and exiftool read it,
 * and return the new bytes (the input is not changed). Pure TypeScript over `Uint8Array`: web APIs only, for
 * every runtime. The format is told from the bytes:
 *
 * - PNG: an `iTXt` chunk `XML:com.adobe.xmp` (XMP `dc:creator` as an `rdf:Seq`, `dc:title`);
 * - JPEG: an APP1 XMP segment; WebP: an `XMP ` chunk (a simple file becomes extended, `VP8X`);
 * - GIF: the `XMP DataXMP` application extension;
 * - PDF: an incremental update with a new `/Info` (`/Author`, `/Title`) and an XMP metadata stream;
 * - anything else that is UTF-8 text (Markdown, plain text): YAML frontmatter `author:` / `title:`.
 *
 * An XMP packet already in an image is replaced (its other properties go with it); EXIF `Artist` and IPTC
 * By-line are left as they are — the server and exiftool's XMP group read the new packet first.
 *
 * @example
 * ```ts
 * const signed = await client.sign(await embedAuthor(bytes, { author: 'Ana Lima', title: 'Harbour' }));
 * ```
 * @throws {FormatError} `unsupported` (neither one of the five formats nor UTF-8 text), `damaged`,
 *   `encrypted` (a PDF); {@link EmbedInputError} `INVALID_AUTHOR`, `INVALID_OPTIONS`.
 */
export async function embedAuthor(
  bytes: Uint8Array | ArrayBuffer,
  options: EmbedAuthorOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const input = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
  if (!(input instanceof Uint8Array)) {
    throw new EmbedInputError('INVALID_OPTIONS', 'embedAuthor needs the file as a Uint8Array or ArrayBuffer');
  }
  const fields = readAuthorFields(options?.author, options?.title);
  const format = formatOf(input);
  if (format === 'text') return embedTextFrontmatter(input, fields);
  const packet = xmpPacket(fields);
  switch (format) {
    case 'png':
      return embedPngXmp(input, packet);
    case 'jpeg':
      return embedJpegXmp(input, packet);
    case 'webp':
      return embedWebpXmp(input, packet);
    case 'gif':
      return embedGifXmp(input, packet);
    case 'pdf':
      return embedPdf(input, fields, packet);
  }
}

/**
 * The format `embedAuthor` would write: by signature, else `text` for UTF-8 without NUL bytes.
 *
 * @throws {FormatError} `unsupported` for anything else.
 */
export function formatOf(bytes: Uint8Array): EmbedFormat {
  const format = detectFormat(bytes);
  if (format !== undefined) return format;
  if (isText(bytes)) return 'text';
  throw new FormatError(
    'unsupported',
    'unknown',
    'These bytes are neither PNG, JPEG, WebP, GIF or PDF nor UTF-8 text (Markdown, plain text): embedAuthor cannot write into them',
  );
}
