import type { FileType } from './file-metadata.js';
import { textEncodingOf } from './text-encoding.js';

/** A format the service signs: what it is, how uploads of it may be named, how its bytes begin. */
export interface FileFormat extends FileType {
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
    mimeType: 'image/webp',
    extension: 'webp',
    names: ['webp'],
    magic: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP',
  },
  {
    kind: 'image',
    mimeType: 'image/png',
    extension: 'png',
    names: ['png'],
    magic: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  {
    kind: 'image',
    mimeType: 'image/jpeg',
    extension: 'jpg',
    names: ['jpg', 'jpeg', 'jpe', 'jfif'],
    magic: (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  },
  {
    kind: 'image',
    mimeType: 'image/gif',
    extension: 'gif',
    names: ['gif'],
    magic: (b) => ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a',
  },
  {
    kind: 'document',
    mimeType: 'application/pdf',
    extension: 'pdf',
    names: ['pdf'],
    magic: (b) => ascii(b, 0, 5) === '%PDF-',
  },
  // R Markdown (`.Rmd`), Quarto (`.qmd`) and MDX (`.mdx`, Docusaurus) are Markdown with the same frontmatter:
  // stored and served as `.md`, the one name the file routes know for Markdown.
  {
    kind: 'text',
    mimeType: 'text/markdown',
    extension: 'md',
    names: ['md', 'markdown', 'rmd', 'qmd', 'mdx'],
  },
  { kind: 'text', mimeType: 'text/plain', extension: 'txt', names: ['txt'] },
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

/** `length` bytes at `offset` as Latin-1 text (empty past the end). */
export function ascii(bytes: Uint8Array, offset: number, length: number): string {
  let text = '';
  const end = Math.min(bytes.length, offset + length);
  for (let i = offset; i < end; i++) text += String.fromCharCode(bytes[i] as number);
  return text;
}
