import { isUtf8, latin1 } from './bytes.js';

/** A format `embedAuthor` writes into; `text` is Markdown and plain text alike (YAML frontmatter). */
export type EmbedFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'pdf' | 'text';

/** The file name extension of each format, as the server stores it. */
export const FORMAT_EXTENSIONS: Readonly<Record<EmbedFormat, string>> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  gif: 'gif',
  pdf: 'pdf',
  text: 'txt',
};

/**
 * The binary format of a file by its first bytes, as the server tells it (`server/src/metadata/formats.ts`):
 * PNG, JPEG, WebP, GIF and PDF signatures; `undefined` for anything else.
 */
export function detectFormat(bytes: Uint8Array): Exclude<EmbedFormat, 'text'> | undefined {
  const head = latin1(bytes, 0, 16);
  if (head.startsWith('\x89PNG\r\n\x1a\n')) return 'png';
  if (head.startsWith('\xff\xd8\xff')) return 'jpeg';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'webp';
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'gif';
  if (head.startsWith('%PDF-')) return 'pdf';
  return undefined;
}

/** Whether the bytes are text the server signs: valid UTF-8 without a NUL byte. */
export function isText(bytes: Uint8Array): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}
