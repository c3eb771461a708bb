// metadata/ owns the server's edge of @siegel/formats: its limits (`limits.ts`), the readers with node:zlib
// and node:crypto injected (`readers.ts`), and reading an upload's type, hash, author and title.
// The server's edge of @siegel/formats: it reads an upload with the formats package (node:zlib and
// node:crypto injected). It refuses in the domain's words, with no HTTP status: `FormatError` as the formats
// package throws it, and `EmptyFileError` for no bytes (`http/error-answers.ts` gives each its answer).
import { createHash } from 'node:crypto';
import { type FileMetadata, readMetadata } from '@siegel/formats';
import { nodePrimitives } from '@siegel/formats/node';

/** Everything the service knows about an upload before signing it. */
export interface FileAnalysis extends FileMetadata {
  /** SHA-256 of the bytes, lowercase hex. */
  hash: string;
  sizeBytes: number;
}

/** An upload without a single byte: nothing to read, nothing to sign. */
export class EmptyFileError extends Error {
  constructor(readonly fileName: string) {
    super(`\`${fileName}\` is empty`);
    this.name = 'EmptyFileError';
  }
}

/**
 * Tell an upload's type from its bytes, check its structure, and read its author, title and description from
 * its own metadata (`readMetadata` of @siegel/formats: XMP, then IPTC, EXIF and PNG text for images, the info
 * dictionary then XMP for PDFs, for text the metadata block it starts with).
 *
 * @throws {EmptyFileError} for no bytes.
 * @throws {FormatError} for unsupported, corrupt or hostile files (of @siegel/formats).
 */
export function analyzeFile(bytes: Uint8Array, fileName: string): FileAnalysis {
  if (bytes.length === 0) throw new EmptyFileError(fileName);
  const metadata: FileMetadata = readMetadata(bytes, fileName, { primitives: nodePrimitives });
  const { type, dimensions, authors, authorSource, authorKeys, title, description } = metadata;
  return {
    hash: createHash('sha256').update(bytes).digest('hex'),
    type,
    sizeBytes: bytes.length,
    dimensions,
    authors,
    authorSource,
    ...(authorKeys !== undefined ? { authorKeys } : {}),
    title,
    description,
  };
}
