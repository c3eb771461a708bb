import { describe, expect, it } from 'vitest';
import { CONTENT_TYPES, FILE_FORMATS, SUPPORTED_FORMATS } from '../../packages/formats/src/file-formats.js';
import { detectFileType } from '../../packages/formats/src/file-type.js';
import { FormatError } from '../../packages/formats/src/format-error.js';

/** The first bytes of a file of each binary format, as real tools write them. */
const HEADS: Record<string, number[] | string> = {
  'image/webp': 'RIFF\x24\x00\x00\x00WEBPVP8 ',
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13],
  'image/jpeg': [0xff, 0xd8, 0xff, 0xe0, 0, 16],
  'image/gif': 'GIF89a\x01\x00\x01\x00',
  'application/pdf': '%PDF-1.7\n',
};
const bytesOf = (head: number[] | string) =>
  typeof head === 'string' ? Uint8Array.from(head, (c) => c.charCodeAt(0)) : Uint8Array.from(head);

describe('the one list of formats', () => {
  it('lists the formats in INVALID_FORMAT answers as the API always has, R Markdown, Quarto and MDX added', () => {
    expect(SUPPORTED_FORMATS).toEqual([
      'image/webp',
      'image/png',
      'image/jpeg',
      'image/gif',
      'application/pdf',
      'text/markdown (.md, .markdown, .rmd, .qmd, .mdx)',
      'text/plain (.txt)',
    ]);
  });

  it('serves every stored extension with its type, text as UTF-8', () => {
    expect(CONTENT_TYPES).toEqual({
      webp: 'image/webp',
      png: 'image/png',
      jpg: 'image/jpeg',
      gif: 'image/gif',
      pdf: 'application/pdf',
      md: 'text/markdown; charset=utf-8',
      txt: 'text/plain; charset=utf-8',
    });
  });

  it('knows the name endings uploads have always had', () => {
    // Binary formats go by content; their names matter where they mislead (a PNG named as a JPEG).
    const png = bytesOf(HEADS['image/png'] as number[]);
    for (const name of ['a.jpg', 'a.JPEG', 'a.jpe', 'a.jfif', 'a.gif', 'a.webp', 'a.pdf', 'a.md', 'a.txt']) {
      expect(() => detectFileType(png, name)).toThrow(/by its content but named/);
    }
    expect(detectFileType(png, 'a.bin').extension).toBe('png');
    const text = new TextEncoder().encode('author: Ann\n');
    expect(detectFileType(text, 'notes.markdown').mimeType).toBe('text/markdown');
    expect(detectFileType(text, 'notes.md').mimeType).toBe('text/markdown');
    expect(detectFileType(text, 'notes.txt').mimeType).toBe('text/plain');
    expect(() => detectFileType(text, 'notes.html')).toThrow(/not a supported format/);
  });

  it('detects each format under each of its names, and refuses it under another format’s name', () => {
    for (const format of FILE_FORMATS) {
      const head = HEADS[format.mimeType];
      const bytes = head ? bytesOf(head) : new TextEncoder().encode('---\nauthor: Ann\n---\n# Hi\n');
      const expected = { kind: format.kind, mimeType: format.mimeType, extension: format.extension };
      for (const name of format.names) {
        expect(detectFileType(bytes, `file.${name.toUpperCase()}`)).toEqual(expected);
      }
      const other = FILE_FORMATS.find((f) => f.magic && f.extension !== format.extension) ?? format;
      if (format.magic) {
        expect(() => detectFileType(bytes, `file.${other.extension}`)).toThrow(/by its content but named/);
        expect(detectFileType(bytes, 'no-extension')).toEqual(expected);
      } else {
        expect(() => detectFileType(bytes, 'no-extension')).toThrow(FormatError);
      }
    }
  });
});
