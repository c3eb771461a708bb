// The writers and the reader of a file's own author come from @siegel/formats (one home for every format);
// here they throw the client's errors, as before: `EmbedError` with the client's codes. The writers are
// imported from `@siegel/formats/embed` (no third-party module in its graph, so a page loads the client as
// plain ES modules); the reader, which parses YAML, TOML and XML, only when `readAuthor` is called.
import type { AuthorReading } from '@siegel/formats';
import {
  type EmbedAuthorOptions,
  type EmbedFormat,
  EmbedInputError,
  embedAuthor as embedInto,
  FormatError,
  formatOf as formatOfBytes,
} from '@siegel/formats/embed';
import { EmbedError } from '../errors.js';

export type { AuthorReading } from '@siegel/formats';
export {
  type EmbedAuthorOptions,
  type EmbedFormat,
  escapeXml,
  FORMAT_EXTENSIONS,
  xmpPacket,
} from '@siegel/formats/embed';

/** The client's code for each kind of `FormatError`. */
const CODES = {
  unsupported: 'UNSUPPORTED_FORMAT',
  damaged: 'DAMAGED_FILE',
  encrypted: 'ENCRYPTED_PDF',
  too_complex: 'DAMAGED_FILE',
  limit: 'DAMAGED_FILE',
} as const;

function asClientError(error: unknown): unknown {
  if (error instanceof FormatError) {
    return new EmbedError({
      code: CODES[error.kind],
      message: error.message,
      ...(error.limit === undefined ? {} : { details: { limit: error.limit } }),
      cause: error,
    });
  }
  if (error instanceof EmbedInputError) return new EmbedError({ code: error.code, message: error.message });
  return error;
}

/**
 * Write the author (and title) into a file's own metadata, where the Siegel server and exiftool read it, and
 * return the new bytes (`embedAuthor` of @siegel/formats: PNG, JPEG, WebP, GIF, PDF, Markdown and text).
 *
 * @example
 * ```ts
 * const signed = await client.sign(await embedAuthor(bytes, { author: 'Ana Lima', title: 'Harbour' }));
 * ```
 * @throws {EmbedError} `UNSUPPORTED_FORMAT`, `DAMAGED_FILE`, `ENCRYPTED_PDF`, `INVALID_AUTHOR`, `INVALID_OPTIONS`.
 */
export async function embedAuthor(
  bytes: Uint8Array | ArrayBuffer,
  options: EmbedAuthorOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await embedInto(bytes, options);
  } catch (error) {
    throw asClientError(error);
  }
}

/**
 * The format `embedAuthor` would write: by signature, else `text` for UTF-8 without NUL bytes.
 *
 * @example
 * ```ts
 * formatOf(pngBytes); // 'png'
 * ```
 * @throws {EmbedError} `UNSUPPORTED_FORMAT` for anything else.
 */
export function formatOf(bytes: Uint8Array): EmbedFormat {
  try {
    return formatOfBytes(bytes);
  } catch (error) {
    throw asClientError(error);
  }
}

/**
 * The author (and title) a Siegel server's `/api/inspect` would read from these bytes, without a server
 * (`readAuthor` of @siegel/formats, on the web's primitives: AES-encrypted PDFs are refused).
 *
 * @example
 * ```ts
 * const { authors, authorSource } = await readAuthor(bytes, { fileName: 'post.md' });
 * ```
 * @throws {EmbedError} `UNSUPPORTED_FORMAT`, `DAMAGED_FILE`, `ENCRYPTED_PDF`.
 */
export async function readAuthor(
  bytes: Uint8Array,
  options: { fileName?: string } = {},
): Promise<AuthorReading> {
  try {
    const { readAuthor: readFrom } = await import('@siegel/formats');
    return readFrom(bytes, options);
  } catch (error) {
    throw asClientError(error);
  }
}
