import { isUtf8 } from 'node:buffer';
import { invalidFormat } from '../api-error.js';
import type { FileType } from './file-metadata.js';
import { FILE_FORMATS, type FileFormat } from './formats.js';

const KNOWN_NAMES = new Set(FILE_FORMATS.flatMap((format) => format.names));

/**
 * Tell the type of an upload from its bytes: PNG, JPEG, GIF, WebP and PDF by their signatures; Markdown and
 * plain text when the bytes are valid UTF-8 without NUL and the name ends in `.md`, `.markdown` or `.txt`.
 * A name whose extension is another supported type's (a PNG named `.pdf`) is refused as misleading.
 *
 * @throws {ApiError} `INVALID_FORMAT` (415) for anything else.
 */
export function detectFileType(bytes: Uint8Array, fileName: string): FileType {
  const extension = /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1]?.toLowerCase();
  const byContent = FILE_FORMATS.find((format) => format.magic?.(bytes));
  if (byContent) {
    if (extension !== undefined && KNOWN_NAMES.has(extension) && !byContent.names.includes(extension)) {
      throw invalidFormat(
        `\`${fileName}\` is ${byContent.mimeType} by its content but named \`.${extension}\`; rename it`,
        415,
      );
    }
    return typeOf(byContent);
  }
  const byName = FILE_FORMATS.find(
    (format) => !format.magic && extension && format.names.includes(extension),
  );
  if (byName === undefined) {
    throw invalidFormat(`\`${fileName}\` is not a supported format`, 415);
  }
  if (!isUtf8Text(bytes)) {
    throw invalidFormat(`\`${fileName}\` is not valid UTF-8 text`, 415);
  }
  return typeOf(byName);
}

function typeOf({ kind, mimeType, extension }: FileFormat): FileType {
  return { kind, mimeType, extension };
}

/**
 * Valid UTF-8 with no NUL byte. Checked by `buffer.isUtf8` (simdutf, in place): decoding to tell would build
 * the whole text as a string (a 24 MiB upload of prose: a 48 MiB string) only to drop it.
 */
export function isUtf8Text(bytes: Uint8Array): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}
