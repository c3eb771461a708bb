// Every writer/reader pair of @siegel/formats round-trips: what `embedAuthor` writes into a real file (sharp's
// images, pdf-lib's PDFs, Markdown and text), `readAuthor` reads back — on the web's primitives (our own
// inflate and MD5) and on the server's (node:zlib, node:crypto) alike. And the web primitives agree with
// node's on data node writes.
import { createHash } from 'node:crypto';
import { crc32 as zlibCrc32, deflateSync as zlibDeflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AUTHOR_CASES, TEXTS, writeImages, writePdfs } from '../../client/test/support/inputs.js';
import { crc32, latin1 } from '../src/bytes.js';
import { embedAuthor, FormatError, readAuthor, webPrimitives } from '../src/index.js';
import { nodePrimitives } from '../src/node.js';

const PRIMITIVES = { web: webPrimitives, node: nodePrimitives } as const;

/** The inputs by file name: sharp's five images, pdf-lib's two PDFs, Markdown with frontmatter, plain text. */
async function inputs(): Promise<Record<string, Uint8Array>> {
  const images = await writeImages();
  const pdfs = await writePdfs();
  return {
    'photo.png': images.png,
    'photo.jpg': images.jpeg,
    'lossy.webp': images['webp-lossy'],
    'alpha.webp': images['webp-lossless-alpha'],
    'photo.gif': images.gif,
    'object-streams.pdf': pdfs.objectStreams,
    'classic.pdf': pdfs.classic,
    'post.md': new TextEncoder().encode(TEXTS.markdown),
    'notes.txt': new TextEncoder().encode(TEXTS.text),
  };
}

/** Where each format's reader finds what the writer wrote. */
function expectedSource(name: string): string {
  if (name.endsWith('.pdf')) return 'pdf:Author';
  if (name.endsWith('.md') || name.endsWith('.txt')) return 'yaml:author';
  return 'xmp:dc:creator';
}

describe('every writer/reader pair round-trips', async () => {
  const files = await inputs();
  for (const [name, bytes] of Object.entries(files)) {
    for (const { id, author, authors, title } of AUTHOR_CASES) {
      it(`${name}, ${id}: readAuthor reads what embedAuthor wrote`, async () => {
        const written = await embedAuthor(bytes, { author, title });
        for (const [runtime, primitives] of Object.entries(PRIMITIVES)) {
          const read = readAuthor(written, { fileName: name, primitives });
          expect(read, `${runtime}`).toEqual({ authors, authorSource: expectedSource(name), title });
        }
      });
    }
  }

  it('a file that names no author reads as none, and bytes of no format are refused as unsupported', () => {
    expect(readAuthor(files['photo.png'] as Uint8Array).authors).toEqual([]);
    const refusal = (() => {
      try {
        readAuthor(new Uint8Array([0, 1, 2, 3]), { fileName: 'x.bin' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(FormatError);
    expect((refusal as FormatError).kind).toBe('unsupported');
  });
});

describe('the web primitives agree with node', () => {
  it('inflate: what zlib deflates at every level, and the bound is kept', () => {
    const text = new TextEncoder().encode('Siegel '.repeat(5000));
    const noise = new Uint8Array(70_000).map((_, i) => (i * 2654435761) >>> 24);
    for (const data of [text, noise, new Uint8Array(0)]) {
      for (const level of [0, 1, 6, 9]) {
        const packed = zlibDeflate(data, { level });
        expect(webPrimitives.inflate(packed, data.length + 1)).toEqual(new Uint8Array(data));
        if (data.length > 0) expect(webPrimitives.inflate(packed, data.length - 1)).toBe('too-large');
      }
    }
    expect(() => webPrimitives.inflate(new Uint8Array([1, 2, 3]), 10)).toThrow();
  });

  it('MD5: the RFC 1321 test suite and node:crypto on lengths around the block size', () => {
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    expect(hex(webPrimitives.md5(new Uint8Array(0)))).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(hex(webPrimitives.md5(new TextEncoder().encode('abc')))).toBe('900150983cd24fb0d6963f7d28e17f72');
    for (const length of [1, 55, 56, 63, 64, 65, 1000]) {
      const data = new Uint8Array(length).map((_, i) => i * 7);
      expect(hex(webPrimitives.md5(data))).toBe(createHash('md5').update(data).digest('hex'));
    }
  });

  it('Latin-1 and CRC-32: bytes.ts and node agree on every byte value (0x80–0x9F too) and across pieces', () => {
    const every = new Uint8Array(3000).map((_, i) => i % 256);
    const noise = new Uint8Array(70_000).map((_, i) => (i * 2654435761) >>> 24);
    for (const data of [new Uint8Array(0), every.subarray(0, 200), every, noise, noise.subarray(1)]) {
      expect(latin1(data)).toBe(Buffer.from(data).toString('latin1'));
      expect(nodePrimitives.latin1?.(data)).toBe(Buffer.from(data).toString('latin1'));
      expect(latin1(data, 1500, 2000)).toBe(Buffer.from(data.subarray(1500, 3500)).toString('latin1'));
      expect(nodePrimitives.crc32?.(data)).toBe(zlibCrc32(data));
      expect(crc32(data)).toBe(zlibCrc32(data));
    }
  });
});
