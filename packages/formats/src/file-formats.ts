// The one table of formats: magic bytes, media type, name endings. Detection for the server (`detectFileType`,
// by bytes and name) and for the writers (`detectFormat`, by bytes alone), the server's `INVALID_FORMAT`
// list and its `Content-Type`s all read it.
import { isUtf8, latin1 } from './bytes.js';
import type { FileType } from './file-metadata.js';
import { textEncodingOf } from './text/encoding.js';

/** A format by its short name: what `detectFormat` answers and `FormatError.format` says. */
export type FormatName = 'webp' | 'png' | 'jpeg' | 'gif' | 'pdf' | 'markdown' | 'text';

/** A format the service signs: what it is, how uploads of it may be named, how its bytes begin. */
export interface FileFormat extends FileType {
  /** The format's short name. */
  name: FormatName;
  /** Name endings (lower case, no dot) an upload of this format may have; the first is `extension`. */
  names: readonly string[];
  /** Tells the format from its first bytes; text formats have none and go by their name. */
  magic?: (bytes: Uint8Array) => boolean;
}

/**
 * Every format the service signs, in the order `INVALID_FORMAT` answers list them. The one list behind
 * detection (`detectFileType`), those answers (`SUPPORTED_FORMATS`) and serving (`CONTENT_TYPES`).
 */
export const FILE_FORMATS: readonly FileFormat[] = [
  {
    kind: 'image',
    name: 'webp',
    mimeType: 'image/webp',
    extension: 'webp',
    names: ['webp'],
    magic: (b) => latin1(b, 0, 4) === 'RIFF' && latin1(b, 8, 4) === 'WEBP',
  },
  {
    kind: 'image',
    name: 'png',
    mimeType: 'image/png',
    extension: 'png',
    names: ['png'],
    magic: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  {
    kind: 'image',
    name: 'jpeg',
    mimeType: 'image/jpeg',
    extension: 'jpg',
    names: ['jpg', 'jpeg', 'jpe', 'jfif'],
    magic: (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  },
  {
    kind: 'image',
    name: 'gif',
    mimeType: 'image/gif',
    extension: 'gif',
    names: ['gif'],
    magic: (b) => latin1(b, 0, 6) === 'GIF87a' || latin1(b, 0, 6) === 'GIF89a',
  },
  {
    kind: 'document',
    name: 'pdf',
    mimeType: 'application/pdf',
    extension: 'pdf',
    names: ['pdf'],
    magic: (b) => latin1(b, 0, 5) === '%PDF-',
  },
  // R Markdown (`.Rmd`), Quarto (`.qmd`) and MDX (`.mdx`, Docusaurus) are Markdown with the same frontmatter:
  // stored and served as `.md`, the one name the file routes know for Markdown.
  {
    kind: 'text',
    name: 'markdown',
    mimeType: 'text/markdown',
    extension: 'md',
    names: ['md', 'markdown', 'rmd', 'qmd', 'mdx'],
  },
  { kind: 'text', name: 'text', mimeType: 'text/plain', extension: 'txt', names: ['txt'] },
];

/** The formats as `INVALID_FORMAT` answers list them: `image/png`, …, `text/markdown (.md, .markdown, …)`. */
export const SUPPORTED_FORMATS: readonly string[] = FILE_FORMATS.map((format) =>
  format.magic
    ? format.mimeType
    : `${format.mimeType} (${format.names.map((name) => `.${name}`).join(', ')})`,
);

/** `Content-Type` of a stored file, by the extension it is stored under (text as UTF-8). */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  FILE_FORMATS.map((format) => [
    format.extension,
    format.kind === 'text' ? `${format.mimeType}; charset=utf-8` : format.mimeType,
  ]),
);

/**
 * `Content-Type` of the stored file `bytes` under `extension`: {@link CONTENT_TYPES}, with text kept in UTF-16
 * (as uploaded, after its byte order mark) labelled `charset=utf-16`, the label for UTF-16 that starts with
 * its byte order mark (RFC 2781), which settles the byte order.
 */
export function contentTypeOf(extension: string, bytes: Uint8Array): string | undefined {
  const type = CONTENT_TYPES[extension];
  if (type === undefined || !type.endsWith('; charset=utf-8')) return type;
  return textEncodingOf(bytes) === 'utf-8' ? type : type.replace(/utf-8$/, 'utf-16');
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

/** A format `embedAuthor` writes into; `text` is Markdown and plain text alike (YAML frontmatter). */
export type EmbedFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'pdf' | 'text';

/** The file name extension of each format `embedAuthor` writes, as the server stores it. */
export const FORMAT_EXTENSIONS: Readonly<Record<EmbedFormat, string>> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  gif: 'gif',
  pdf: 'pdf',
  text: 'txt',
};

/**
 * The binary format of a file by its first bytes ({@link FILE_FORMATS}' signatures): PNG, JPEG, WebP, GIF
 * and PDF; `undefined` for anything else.
 *
 * @example
 * ```ts
 * detectFormat(new TextEncoder().encode('%PDF-1.7')); // 'pdf'
 * ```
 */
export function detectFormat(bytes: Uint8Array): Exclude<EmbedFormat, 'text'> | undefined {
  return FILE_FORMATS.find((format) => format.magic?.(bytes))?.name as
    | Exclude<EmbedFormat, 'text'>
    | undefined;
}

/** Whether the bytes are text the server signs as UTF-8: valid UTF-8 without a NUL byte. */
export function isText(bytes: Uint8Array): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}
