// metadata/ owns the server's edge of @siegel/formats: its limits (`limits.ts`), the readers with node:zlib
// and node:crypto injected (`readers.ts`), and reading an upload's type, hash, author and title.
// The server's edge of @siegel/formats: it reads an upload with the formats package (node:zlib and
// node:crypto injected) and turns a `FormatError` into the API's `INVALID_FORMAT` answer — 415 for a type it
// does not sign, 422 for everything else, with `limit` when a bound was passed.
import { createHash } from 'node:crypto';
import { type FileMetadata, FormatError, readMetadata } from '@siegel/formats';
import { nodePrimitives } from '@siegel/formats/node';
import { ApiError, invalidFormat } from '../api-error.js';

/** Everything the service knows about an upload before signing it. */
export interface FileAnalysis extends FileMetadata {
  /** SHA-256 of the bytes, lowercase hex. */
  hash: string;
  sizeBytes: number;
}

/**
 * Tell an upload's type from its bytes, check its structure, and read its author, title and description from
 * its own metadata (`readMetadata` of @siegel/formats: XMP, then IPTC, EXIF and PNG text for images, the info
 * dictionary then XMP for PDFs, for text the metadata block it starts with).
 *
 * @throws {ApiError} `NO_FILE` for no bytes; `INVALID_FORMAT` for unsupported, corrupt or hostile files.
 */
export function analyzeFile(bytes: Uint8Array, fileName: string): FileAnalysis {
  if (bytes.length === 0) throw new ApiError(400, 'NO_FILE', `\`${fileName}\` is empty`);
  let metadata: FileMetadata;
  try {
    metadata = readMetadata(bytes, fileName, { primitives: nodePrimitives });
  } catch (error) {
    throw error instanceof FormatError ? formatRefusal(error) : error;
  }
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

/**
 * The API's answer to a {@link FormatError}: `INVALID_FORMAT`, 415 when the format is not one the service
 * signs, 422 otherwise (damaged, encrypted, too complex, past a bound — `limit` names the bound).
 *
 * @example
 * ```ts
 * throw formatRefusal(new FormatError('limit', 'pdf', 'Too many objects', 'pdf_objects')); // 422, limit
 * ```
 */
export function formatRefusal(error: FormatError): ApiError {
  const refusal = invalidFormat(error.message, error.kind === 'unsupported' ? 415 : 422);
  if (error.limit !== undefined) refusal.extra.limit = error.limit;
  return refusal;
}
