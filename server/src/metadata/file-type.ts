import { invalidFormat } from '../api-error.js';
import type { FileType } from './file-metadata.js';

const BINARY_TYPES: Array<{ type: FileType; matches(bytes: Uint8Array): boolean; extensions: string[] }> = [
  {
    type: { kind: 'image', mimeType: 'image/png', extension: 'png' },
    matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    extensions: ['png'],
  },
  {
    type: { kind: 'image', mimeType: 'image/jpeg', extension: 'jpg' },
    matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]),
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
  },
  {
    type: { kind: 'image', mimeType: 'image/gif', extension: 'gif' },
    matches: (b) => ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a',
    extensions: ['gif'],
  },
  {
    type: { kind: 'image', mimeType: 'image/webp', extension: 'webp' },
    matches: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP',
    extensions: ['webp'],
  },
  {
    type: { kind: 'document', mimeType: 'application/pdf', extension: 'pdf' },
    matches: (b) => ascii(b, 0, 5) === '%PDF-',
    extensions: ['pdf'],
  },
];

const TEXT_EXTENSIONS: Record<string, FileType> = {
  md: { kind: 'text', mimeType: 'text/markdown', extension: 'md' },
  markdown: { kind: 'text', mimeType: 'text/markdown', extension: 'md' },
  txt: { kind: 'text', mimeType: 'text/plain', extension: 'txt' },
};

const KNOWN_EXTENSIONS = new Set([
  ...BINARY_TYPES.flatMap((t) => t.extensions),
  ...Object.keys(TEXT_EXTENSIONS),
]);

/**
 * Tell the type of an upload from its bytes: PNG, JPEG, GIF, WebP and PDF by their signatures; Markdown and
 * plain text when the bytes are valid UTF-8 without NUL and the name ends in `.md`, `.markdown` or `.txt`.
 * A name whose extension is another supported type's (a PNG named `.pdf`) is refused as misleading.
 *
 * @throws {ApiError} `INVALID_FORMAT` (415) for anything else.
 */
export function detectFileType(bytes: Uint8Array, fileName: string): FileType {
  const extension = /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1]?.toLowerCase();
  for (const candidate of BINARY_TYPES) {
    if (!candidate.matches(bytes)) continue;
    if (
      extension !== undefined &&
      KNOWN_EXTENSIONS.has(extension) &&
      !candidate.extensions.includes(extension)
    ) {
      throw invalidFormat(
        `\`${fileName}\` is ${candidate.type.mimeType} by its content but named \`.${extension}\`; rename it`,
        415,
      );
    }
    return candidate.type;
  }
  const textType = extension === undefined ? undefined : TEXT_EXTENSIONS[extension];
  if (textType === undefined) {
    throw invalidFormat(`\`${fileName}\` is not a supported format`, 415);
  }
  if (!isUtf8Text(bytes)) {
    throw invalidFormat(`\`${fileName}\` is not valid UTF-8 text`, 415);
  }
  return textType;
}

/** Valid UTF-8 with no NUL byte. */
export function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
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
