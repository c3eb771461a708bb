import { FILE_FORMATS, type FileFormat } from './file-formats.js';
import type { FileType } from './file-metadata.js';
import { unsupported } from './format-error.js';
import { checkTextEncoding } from './text/encoding.js';

const KNOWN_NAMES = new Set(FILE_FORMATS.flatMap((format) => format.names));

/**
 * Tell the type of an upload from its bytes: PNG, JPEG, GIF, WebP and PDF by their signatures; Markdown and
 * plain text when the name ends in `.md`, `.markdown`, `.Rmd`, `.qmd`, `.mdx` or `.txt` (in any case) and the
 * bytes are UTF-8 without NUL, or UTF-16 after its byte order mark (`checkTextEncoding`); the type's own
 * extension (`md`, `txt`) is what the file is stored and served under. A name whose extension is another supported type's
 * (a PNG named `.pdf`) is refused as misleading.
 *
 * @throws {FormatError} `unsupported` for anything else; `damaged` for UTF-16 text whose bytes are broken.
 */
export function detectFileType(bytes: Uint8Array, fileName: string): FileType {
  const extension = /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1]?.toLowerCase();
  const byContent = FILE_FORMATS.find((format) => format.magic?.(bytes));
  if (byContent) {
    if (extension !== undefined && KNOWN_NAMES.has(extension) && !byContent.names.includes(extension)) {
      throw unsupported(
        'unknown',
        `\`${fileName}\` is ${byContent.mimeType} by its content but named \`.${extension}\`; rename it`,
      );
    }
    return typeOf(byContent);
  }
  const byName = FILE_FORMATS.find(
    (format) => !format.magic && extension && format.names.includes(extension),
  );
  if (byName === undefined) {
    throw unsupported('unknown', `\`${fileName}\` is not a supported format`);
  }
  checkTextEncoding(bytes, fileName);
  return typeOf(byName);
}

function typeOf({ kind, mimeType, extension }: FileFormat): FileType {
  return { kind, mimeType, extension };
}
