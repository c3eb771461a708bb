import { FormatError } from './format-error.js';

/**
 * Every bound the metadata readers keep, by name: the one limits table. With them each reader's time and
 * memory grow at most linearly with the file (most are far above what a real file needs; the comment says
 * what real files use). A file past one is refused with a {@link FormatError} of kind `limit` whose `limit`
 * is the bound's name (the server answers 422 `INVALID_FORMAT` with that `limit` field).
 */
export const FORMAT_LIMITS = {
  /** PDF: objects indexed, direct (`N G obj`) and in object streams together (real files: < 100 000). */
  pdf_objects: 500_000,
  /** PDF: object streams in one file (real files: a few hundred at most). */
  pdf_object_streams: 10_000,
  /** PDF: bytes one stream may inflate to (object streams, XMP). */
  pdf_stream_bytes: 16 * 1024 * 1024,
  /** PDF: bytes all streams of a file may inflate to, together (a deflate bomb inflates ~1000×). */
  pdf_inflated_bytes: 64 * 1024 * 1024,
  /**
   * PDF: bytes of encrypted strings and streams one file may have decrypted, together (what is read: the
   * Info strings, the XMP stream, object streams; real files: well under 1 MiB). What is decrypted then
   * inflates within `pdf_stream_bytes` and `pdf_inflated_bytes` like any stream.
   */
  pdf_decrypted_bytes: 16 * 1024 * 1024,
  /** PDF: values (numbers, names, strings, entries…) in one parsed object (metadata: a few dozen). */
  pdf_object_values: 100_000,
  /** PDF: arrays and dictionaries nested in each other (real metadata: 2 or 3). */
  pdf_nesting: 100,
  /** PDF: incremental updates followed back through `/Prev`. */
  pdf_prev_chain: 32,
  /**
   * PDF: bytes the object parser may walk over in all, as a multiple of the file's size (the same bytes
   * named by many references are read once each; a reader that reads every object once walks ≤ 1×).
   */
  pdf_parse_factor: 4,
  /** Images: PNG chunks, JPEG segments before the scan, GIF blocks, WebP chunks (real files: < 10 000). */
  image_blocks: 100_000,
  /** XMP packet size, after inflating (real ones are a few KiB; 1 MiB leaves room for thumbnails). */
  xmp_bytes: 1024 * 1024,
  /** XMP: packets read from one image (real files: one, sometimes a second copy in a raw profile). */
  xmp_packets: 16,
  /**
   * Images: bytes one compressed PNG text chunk (`zTXt`, compressed `iTXt`) may inflate to; an XMP packet
   * stops at `xmp_bytes` already. A raw profile (ImageMagick) is hex, twice its data.
   */
  image_text_bytes: 4 * 1024 * 1024,
  /** Images: bytes all compressed text chunks of one image may inflate to, together (a bomb inflates ~1000×). */
  image_inflated_bytes: 16 * 1024 * 1024,
  /** XMP: elements nested in each other. */
  xmp_nesting: 64,
  /** XMP: namespace declarations in one packet (real ones: a dozen). */
  xmp_namespaces: 1000,
  /**
   * Markdown/TXT: size of the metadata block — YAML, TOML or JSON frontmatter, a Pandoc title block — in
   * characters (real ones are a few hundred bytes).
   */
  frontmatter_bytes: 64 * 1024,
  /** Markdown/TXT: arrays and tables nested in JSON or TOML frontmatter (real ones: 2 or 3). */
  frontmatter_nesting: 64,
  /** Markdown/TXT: YAML alias expansions (stops "billion laughs" alias bombs). */
  yaml_aliases: 50,
} as const;

/** The name of one of {@link FORMAT_LIMITS}. */
export type FormatLimit = keyof typeof FORMAT_LIMITS;

/**
 * A {@link FormatError} of kind `limit` for a file past `limit`; its format is told by the bound's name.
 *
 * @example
 * ```ts
 * throw pastLimit('pdf_objects', `This PDF has more than ${FORMAT_LIMITS.pdf_objects} objects`);
 * ```
 */
export function pastLimit(limit: FormatLimit, message: string): FormatError {
  const format = limit.startsWith('pdf_')
    ? 'pdf'
    : limit.startsWith('xmp_')
      ? 'xmp'
      : limit.startsWith('image_')
        ? 'image'
        : 'text';
  return new FormatError('limit', format, message, limit);
}

/** Whether `error` is a refusal by {@link pastLimit} (as opposed to plain damage). */
export function isPastLimit(error: unknown): boolean {
  return error instanceof FormatError && error.kind === 'limit';
}
