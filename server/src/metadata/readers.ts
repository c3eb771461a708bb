// The readers the server's package exports by name (since before @siegel/formats): the formats package's,
// with node:zlib and node:crypto injected where they need them. They refuse with `FormatError`.
import * as formats from '@siegel/formats';
import { nodePrimitives } from '@siegel/formats/node';

export { readTextFileMetadata, readTextMetadata, readXmp } from '@siegel/formats';

/**
 * A PDF's author, title and description (`readPdfMetadata` of @siegel/formats on node:crypto).
 *
 * @example
 * ```ts
 * readPdfMetadata(bytes).authors; // ['Ana Lima']
 * ```
 * @throws {FormatError} of @siegel/formats.
 */
export function readPdfMetadata(bytes: Uint8Array): formats.FoundMetadata {
  return formats.readPdfMetadata(bytes, nodePrimitives);
}
