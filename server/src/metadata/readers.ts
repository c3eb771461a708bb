// The readers the server's package exports by name (since before @siegel/formats), kept with their old
// contract: node:zlib and node:crypto injected, and `ApiError` (`INVALID_FORMAT`) thrown as before.
import * as formats from '@siegel/formats';
import { nodePrimitives } from '@siegel/formats/node';
import { formatRefusal } from './analyze-file.js';

function answered<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof formats.FormatError ? formatRefusal(error) : error;
  }
}

/**
 * A PDF's author, title and description (`readPdfMetadata` of @siegel/formats on node:crypto).
 *
 * @example
 * ```ts
 * readPdfMetadata(bytes).authors; // ['Ana Lima']
 * ```
 * @throws {ApiError} `INVALID_FORMAT`.
 */
export function readPdfMetadata(bytes: Uint8Array): formats.FoundMetadata {
  return answered(() => formats.readPdfMetadata(bytes, nodePrimitives));
}

/**
 * The metadata block a text starts with, read (`readTextMetadata` of @siegel/formats).
 *
 * @example
 * ```ts
 * readTextMetadata('---\nauthor: Ana Lima\n---\n', true).authors; // ['Ana Lima']
 * ```
 * @throws {ApiError} `INVALID_FORMAT`.
 */
export function readTextMetadata(text: string, markdown: boolean): formats.FoundMetadata {
  return answered(() => formats.readTextMetadata(text, markdown));
}

/**
 * An XMP packet's authors, title and description (`readXmp` of @siegel/formats).
 *
 * @example
 * ```ts
 * readXmp(packet).authors;
 * ```
 * @throws {ApiError} `INVALID_FORMAT`.
 */
export function readXmp(packet: Uint8Array | string): formats.XmpMetadata {
  return answered(() => formats.readXmp(packet));
}

/**
 * A text file's metadata block, read from its bytes (`readTextFileMetadata` of @siegel/formats).
 *
 * @example
 * ```ts
 * readTextFileMetadata(bytes, true).authors;
 * ```
 * @throws {ApiError} `INVALID_FORMAT`.
 */
export function readTextFileMetadata(bytes: Uint8Array, markdown: boolean): formats.FoundMetadata {
  return answered(() => formats.readTextFileMetadata(bytes, markdown));
}
