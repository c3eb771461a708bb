// @siegel/formats: read and write the author and title of the files Siegel signs — one table of formats, one
// walker per format with its reader and writer, one PDF core, one limits table, one error type.
export { cleanText, isRealAuthor, nameOf, PLACEHOLDER_AUTHORS, selectAuthors } from './author.js';
export { type EmbedAuthorOptions, embedAuthor, formatOf } from './embed-author.js';
export {
  CONTENT_TYPES,
  contentTypeOf,
  detectFormat,
  type EmbedFormat,
  FILE_FORMATS,
  type FileFormat,
  FORMAT_EXTENSIONS,
  type FormatName,
  isText,
  SUPPORTED_FORMATS,
} from './file-formats.js';
export type { Dimensions, FileKind, FileType, FoundMetadata } from './file-metadata.js';
export { detectFileType } from './file-type.js';
export { EmbedInputError, FormatError, type FormatErrorKind } from './format-error.js';
export { FORMAT_LIMITS, type FormatLimit, isPastLimit } from './limits.js';
export { readPdfMetadata } from './pdf/metadata.js';
export { decodePdfText } from './pdf/text.js';
export { type FormatPrimitives, webPrimitives } from './primitives.js';
export {
  type AuthorReading,
  type FileMetadata,
  type ReadOptions,
  readAuthor,
  readMetadata,
} from './read-metadata.js';
export { textEncodingOf } from './text/encoding.js';
export { readTextFileMetadata, readTextMetadata } from './text/metadata.js';
export { escapeXml, xmpPacket } from './xmp/packet.js';
export { readXmp, type XmpMetadata } from './xmp/read.js';
