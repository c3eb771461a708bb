import { cleanText, selectAuthors } from '../author.js';
import type { FoundMetadata } from '../file-metadata.js';
import { FormatError } from '../format-error.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import { type FormatPrimitives, webPrimitives } from '../primitives.js';
import { readXmp, type XmpMetadata } from '../xmp/read.js';
import { PdfDocument } from './document.js';
import type { PdfOwner } from './stream.js';
import { isRef, type PdfDict, type PdfValue } from './syntax.js';
import { decodePdfText } from './text.js';

const MAX_XMP_BYTES = FORMAT_LIMITS.xmp_bytes;
/** Bytes of a metadata string decoded (authors, titles and descriptions are cut far shorter afterwards). */
const MAX_TEXT_BYTES = 64 * 1024;

/** Where a PDF's author was read, as `metadata.author_source` names it (exiftool's group and tag). */
export type PdfAuthorSource = 'pdf:Author' | 'xmp:dc:creator';

/**
 * Read author, title and subject of a PDF: the document information dictionary's `/Author`, `/Title` and
 * `/Subject` (PDFDocEncoding, UTF-16 or UTF-8), each only where it says something — an empty or placeholder
 * entry (LaTeX writes `/Author ()` by default) does not hide the catalog's XMP metadata stream, whose
 * `dc:creator`, `dc:title` and `dc:description` are read then. `authorSource` names the field used.
 *
 * Every cross-reference form is read (tables, streams, hybrid files, object streams, incremental updates
 * with the newest definition winning, linearized files), and files encrypted by the standard security
 * handler with an empty user password (permissions only) are decrypted as a PDF reader opens them.
 *
 * Bounded by `FORMAT_LIMITS` (`pdf_*`, and `xmp_*` for an XMP stream the author has to come from; one
 * that is only read for the title or description is skipped when it is damaged or too large).
 *
 * @throws {FormatError} for truncated, malformed or too complex files, and for encrypted ones
 *   that need a password or another security handler.
 */
export function readPdfMetadata(
  bytes: Uint8Array,
  primitives: FormatPrimitives = webPrimitives,
): FoundMetadata {
  const document = new PdfDocument(bytes, primitives);
  const trailer = document.open();
  const info = document.resolve(trailer.get('Info'));
  const fields = info.value instanceof Map ? info.value : new Map<string, PdfValue>();
  const text = (key: string) => readText(document, fields.get(key), info.owner);
  const author = text('Author');
  const infoAuthors = author === undefined ? [] : splitAuthors(author);
  const found: FoundMetadata = { authors: [], title: text('Title'), description: text('Subject') };
  if (selectAuthors(infoAuthors).length > 0) {
    found.authors = infoAuthors;
    found.authorSource = 'pdf:Author';
  }
  if (found.authorSource !== undefined && says(found.title) && says(found.description)) return found;
  const required = found.authorSource === undefined;
  let xmp: XmpMetadata | undefined;
  try {
    xmp = readXmpPacket(document, trailer, required);
  } catch (error) {
    // A damaged or oversized packet matters only when the author has to come from it.
    if (required || !(error instanceof FormatError)) throw error;
  }
  if (xmp === undefined) return found;
  if (found.authorSource === undefined && selectAuthors(xmp.authors).length > 0) {
    found.authors = xmp.authors;
    found.authorSource = 'xmp:dc:creator';
  }
  if (!says(found.title)) found.title = xmp.title ?? found.title;
  if (!says(found.description)) found.description = xmp.description ?? found.description;
  return found;
}

/** Whether a text field says something (not empty or blank). */
function says(value: string | undefined): boolean {
  return cleanText(value) !== undefined;
}

/** `/Author` is one string; writers join several people with `;` (a `,` may be inside one name: `Doe, Jane`). */
function splitAuthors(author: string): string[] {
  return author.split(';', 1000).map((name) => name.trim());
}

/** A text string (its first 64 KiB: metadata fields are cut far shorter), decrypted and decoded. */
function readText(document: PdfDocument, value: PdfValue | undefined, owner: PdfOwner): string | undefined {
  const bytes = document.readString(value, owner, MAX_TEXT_BYTES);
  return bytes === undefined ? undefined : decodePdfText(bytes);
}

/**
 * The catalog's `/Metadata` stream, read as XMP, as exiftool and PDF readers take the document's XMP. A stream
 * that decodes past `xmp_bytes` is skipped, or, when the author has to come from it (`required`), refused.
 * No other packet in the file counts: an embedded photo's JPEG keeps its own XMP unencoded in its stream,
 * and its photographer is not the document's author.
 */
function readXmpPacket(document: PdfDocument, trailer: PdfDict, required: boolean): XmpMetadata | undefined {
  const root = document.resolve(trailer.get('Root')).value;
  const ref = root instanceof Map ? root.get('Metadata') : undefined;
  if (isRef(ref)) {
    const read = document.readMetadataStream(ref.num, MAX_XMP_BYTES);
    if ('data' in read) return readXmp(read.data);
    if (read.error === 'too-large' && required) {
      throw pastLimit(
        'xmp_bytes',
        `This PDF's XMP metadata stream decodes to more than ${MAX_XMP_BYTES} bytes, and its author can only be there; it is not read`,
      );
    }
  }
  return undefined;
}
