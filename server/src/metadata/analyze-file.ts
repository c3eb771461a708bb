import { createHash } from 'node:crypto';
import { ApiError, invalidFormat } from '../api-error.js';
import { cleanText, selectAuthors } from './author.js';
import type { Dimensions, FileType, FoundMetadata } from './file-metadata.js';
import { detectFileType } from './file-type.js';
import { readImageContainer } from './image-container.js';
import { readImageMetadata } from './image-metadata.js';
import { readPdfMetadata } from './pdf-metadata.js';
import { readTextFileMetadata } from './text-metadata.js';

/** Everything the service knows about an upload before signing it. */
export interface FileAnalysis {
  /** SHA-256 of the bytes, lowercase hex. */
  hash: string;
  type: FileType;
  sizeBytes: number;
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

/**
 * Tell an upload's type from its bytes, check its structure, and read its author, title and description from
 * its own metadata (XMP, then IPTC, EXIF and PNG text for images, the info dictionary then XMP for PDFs, for
 * text the metadata block it starts with: YAML, TOML or JSON frontmatter, a Pandoc title block, MultiMarkdown).
 *
 * @throws {ApiError} `INVALID_FORMAT` for unsupported, corrupt or hostile files.
 */
export function analyzeFile(bytes: Uint8Array, fileName: string): FileAnalysis {
  if (bytes.length === 0) throw new ApiError(400, 'NO_FILE', `\`${fileName}\` is empty`);
  const type = detectFileType(bytes, fileName);
  let dimensions: Dimensions | undefined;
  let found: FoundMetadata;
  try {
    if (type.kind === 'image') {
      const container = readImageContainer(bytes, type.mimeType);
      dimensions = container.dimensions;
      found = readImageMetadata(container.blocks);
    } else if (type.kind === 'document') {
      found = readPdfMetadata(bytes);
    } else {
      found = readTextFileMetadata(bytes, type.mimeType === 'text/markdown');
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // A reader tripped over bytes it did not expect (e.g. an offset past the end): the file is broken.
    throw invalidFormat(`\`${fileName}\` could not be read as ${type.mimeType}: ${(error as Error).message}`);
  }
  const authors = selectAuthors(found.authors);
  return {
    hash: createHash('sha256').update(bytes).digest('hex'),
    type,
    sizeBytes: bytes.length,
    dimensions,
    authors,
    authorSource: authors.length > 0 ? found.authorSource : undefined,
    ...(authors.length === 0 && found.authorKeys !== undefined ? { authorKeys: found.authorKeys } : {}),
    title: cleanText(found.title),
    description: cleanText(found.description, 1000),
  };
}
