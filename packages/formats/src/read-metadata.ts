// The author/title policy in one place: which reader a format gets, which field wins (XMP, then IPTC, EXIF
// and PNG text for images; the info dictionary, then XMP for PDFs; the metadata block a text starts with),
// placeholders dropped, names split, and the field the authors came from (`author_source`). The server's
// `/api/inspect` and `@siegel/client`'s `readAuthor` both answer from here.
import { cleanText, selectAuthors } from './author.js';
import { FILE_FORMATS } from './file-formats.js';
import type { Dimensions, FileType, FoundMetadata } from './file-metadata.js';
import { detectFileType } from './file-type.js';
import { FormatError } from './format-error.js';
import { readImageContainer } from './image/container.js';
import { readImageMetadata } from './image/metadata.js';
import { readPdfMetadata } from './pdf/metadata.js';
import { type FormatPrimitives, webPrimitives } from './primitives.js';
import { readTextFileMetadata } from './text/metadata.js';

/** What a file says about itself: its type, size in pixels, authors, title and description. */
export interface FileMetadata {
  type: FileType;
  dimensions: Dimensions | undefined;
  /** Real authors (placeholders removed), in the file's order; empty when there is none. */
  authors: string[];
  /** The field the authors were read from (`xmp:dc:creator`, …), when there are some and the reader names it. */
  authorSource: string | undefined;
  /** Author keys found instead of names (`FoundMetadata.authorKeys`), when no field names a real author. */
  authorKeys?: { source: string; keys: string[] } | undefined;
  title: string | undefined;
  description: string | undefined;
}

/** Options of {@link readMetadata} and {@link readAuthor}. */
export interface ReadOptions {
  /** The runtime's primitives (default {@link webPrimitives}; on Node, `nodePrimitives` of `@siegel/formats/node`). */
  primitives?: FormatPrimitives;
}

/**
 * Tell a file's type from its bytes (and, for text, its name), check its structure, and read its author,
 * title and description from its own metadata — what the Siegel server reads before it signs.
 *
 * @example
 * ```ts
 * const { authors, authorSource } = readMetadata(bytes, 'photo.jpg');
 * ```
 * @throws {FormatError} for unsupported, damaged, encrypted or hostile files.
 */
export function readMetadata(bytes: Uint8Array, fileName: string, options: ReadOptions = {}): FileMetadata {
  const primitives = options.primitives ?? webPrimitives;
  const type = detectFileType(bytes, fileName);
  let dimensions: Dimensions | undefined;
  let found: FoundMetadata;
  try {
    if (type.kind === 'image') {
      const container = readImageContainer(bytes, type.mimeType, primitives);
      dimensions = container.dimensions;
      found = readImageMetadata(container.blocks);
    } else if (type.kind === 'document') {
      found = readPdfMetadata(bytes, primitives);
    } else {
      found = readTextFileMetadata(bytes, type.mimeType === 'text/markdown');
    }
  } catch (error) {
    if (error instanceof FormatError) throw error;
    // A reader tripped over bytes it did not expect (e.g. an offset past the end): the file is broken.
    throw new FormatError(
      'damaged',
      type.extension,
      `\`${fileName}\` could not be read as ${type.mimeType}: ${(error as Error).message}`,
    );
  }
  const authors = selectAuthors(found.authors);
  return {
    type,
    dimensions,
    authors,
    authorSource: authors.length > 0 ? found.authorSource : undefined,
    ...(authors.length === 0 && found.authorKeys !== undefined ? { authorKeys: found.authorKeys } : {}),
    title: cleanText(found.title),
    description: cleanText(found.description, 1000),
  };
}

/** The author and title a file names, as the server's `/api/inspect` reports them. */
export interface AuthorReading {
  /** Real authors, in the file's order; empty when there is none (the server would refuse to sign). */
  authors: string[];
  /** The field they came from (`xmp:dc:creator`, `pdf:Author`, `yaml:author`, …). */
  authorSource: string | undefined;
  title: string | undefined;
}

/**
 * The author (and title) the Siegel server would read from these bytes, without a server. A file with no
 * signature of its own is read as Markdown unless `fileName` says otherwise (`notes.txt`).
 *
 * @example
 * ```ts
 * const { authors, authorSource } = readAuthor(bytes); // ['Ana Lima'], 'xmp:dc:creator'
 * ```
 * @throws {FormatError} as {@link readMetadata}.
 */
export function readAuthor(
  bytes: Uint8Array,
  options: ReadOptions & { fileName?: string } = {},
): AuthorReading {
  const byContent = FILE_FORMATS.find((format) => format.magic?.(bytes));
  const fileName = options.fileName ?? `file.${byContent?.extension ?? 'md'}`;
  const { authors, authorSource, title } = readMetadata(bytes, fileName, options);
  return { authors, authorSource, title };
}
