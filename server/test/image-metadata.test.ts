// Issue 25: every place the image formats' specifications (PNG 3rd ed., XMP Part 3, TIFF/EXIF, IPTC-IIM,
// Photoshop resources) let an author be, built here byte by byte, and the bounds on what is inflated. The same
// places as real tools write them are checked against exiftool in test/server/image-writers.test.ts.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readImageContainer } from '../../packages/formats/src/image/container.js';
import { readImageMetadata } from '../../packages/formats/src/image/metadata.js';
import { pngChunk } from '../fixtures/png-chunk.mjs';
import { ApiError } from '../src/http/api-error.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { ANALYSIS_LIMITS } from '../src/metadata/limits.js';
import { asApiError } from './format-refusal.js';
import * as hostile from './hostile-files.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** An XMP packet naming `creators` (an `rdf:Seq`), a title, and optionally `xmpNote:HasExtendedXMP`. */
function xmp(creators: string[], options: { title?: string; guid?: string } = {}): string {
  const title =
    options.title === undefined
      ? ''
      : `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${options.title}</rdf:li></rdf:Alt></dc:title>`;
  const creator =
    creators.length === 0
      ? ''
      : `<dc:creator><rdf:Seq>${creators.map((name) => `<rdf:li>${name}</rdf:li>`).join('')}</rdf:Seq></dc:creator>`;
  const note = options.guid === undefined ? '' : ` xmpNote:HasExtendedXMP="${options.guid}"`;
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmpNote="http://ns.adobe.com/xmp/note/"${note}>${creator}${title}</rdf:Description></rdf:RDF></x:xmpmeta>`;
}

const latin = (text: string) => Buffer.from(text, 'latin1');
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const tEXt = (keyword: string, text: Buffer) =>
  pngChunk('tEXt', Buffer.concat([latin(`${keyword}\0`), text]));
const zTXt = (keyword: string, text: Buffer) =>
  pngChunk('zTXt', Buffer.concat([latin(`${keyword}\0\0`), deflateSync(text)]));
function iTXt(keyword: string, text: string, options: { compressed?: boolean; language?: string } = {}) {
  const body = options.compressed ? deflateSync(utf8(text)) : utf8(text);
  const head = `${keyword}\0${options.compressed ? '\x01' : '\0'}\0${options.language ?? ''}\0\0`;
  return pngChunk('iTXt', Buffer.concat([latin(head), body]));
}

/** ImageMagick's raw profile text: `\n{type}\n{length, right-aligned in 8}\n{hex in lines of 72}\n`. */
function rawProfile(type: string, data: Buffer): Buffer {
  const hex = data.toString('hex').replace(/(.{72})/g, '$1\n');
  return latin(`\n${type}\n${String(data.length).padStart(8)}\n${hex}\n`);
}

/** A TIFF structure whose IFD0 holds `Artist` (an offset value, past 4 bytes) in the given byte order. */
function tiffWithArtist(artist: string, bigEndian = false): Buffer {
  return tiffWithTags([[0x013b, 2, Buffer.concat([utf8(artist), Buffer.from([0])])]], bigEndian);
}

/** A TIFF structure whose IFD0 holds `[tag, type, value]` entries (values after the directory). */
function tiffWithTags(entries: Array<[number, number, Buffer]>, bigEndian = false): Buffer {
  const directory = 8 + 2 + 12 * entries.length + 4;
  const tiff = Buffer.alloc(directory + entries.reduce((sum, [, , value]) => sum + value.length, 0));
  const u16 = (v: number, at: number) => (bigEndian ? tiff.writeUInt16BE(v, at) : tiff.writeUInt16LE(v, at));
  const u32 = (v: number, at: number) => (bigEndian ? tiff.writeUInt32BE(v, at) : tiff.writeUInt32LE(v, at));
  tiff.write(bigEndian ? 'MM' : 'II', 0, 'latin1');
  u16(42, 2);
  u32(8, 4);
  u16(entries.length, 8);
  let offset = directory;
  entries.forEach(([tag, type, value], index) => {
    const entry = 10 + 12 * index;
    u16(tag, entry);
    u16(type, entry + 2);
    u32(value.length, entry + 4);
    u32(offset, entry + 8);
    value.copy(tiff, offset);
    offset += value.length;
  });
  return tiff;
}

/** IPTC-IIM datasets `[record, dataset, value]`. */
function iim(datasets: Array<[number, number, Buffer]>): Buffer {
  return Buffer.concat(
    datasets.map(([record, dataset, value]) => {
      const head = Buffer.from([0x1c, record, dataset, 0, 0]);
      head.writeUInt16BE(value.length, 3);
      return Buffer.concat([head, value]);
    }),
  );
}

/** A Photoshop image resource block: `8BIM`, the ID, an empty name (padded to 2), size, data (padded). */
function irb(resources: Array<[number, Buffer]>): Buffer {
  return Buffer.concat(
    resources.map(([id, data]) => {
      const head = Buffer.alloc(12);
      head.write('8BIM', 0, 'latin1');
      head.writeUInt16BE(id, 4);
      head.writeUInt32BE(data.length, 8);
      return Buffer.concat([head, data, Buffer.alloc(data.length % 2)]);
    }),
  );
}

const UTF8_CHARSET: [number, number, Buffer] = [1, 90, latin('\x1b%G')];

function analyze(file: hostile.HostileFile) {
  const { authors, authorSource, title } = analyzeFile(file.bytes, file.name);
  return { authors, source: authorSource, title };
}

function refusal(file: hostile.HostileFile): ApiError {
  try {
    analyzeFile(file.bytes, file.name);
  } catch (error) {
    if (asApiError(error) instanceof ApiError) return asApiError(error) as ApiError;
    throw error;
  }
  throw new Error(`${file.name} was read, not refused`);
}

describe('PNG: XMP in every text chunk, as exiftool reads it', () => {
  const packet = xmp(['Zoë Ørsted', '山田太郎'], { title: 'Fjørd' });
  const expected = { authors: ['Zoë Ørsted', '山田太郎'], source: 'xmp:dc:creator', title: 'Fjørd' };

  it('reads zTXt (libvips, sharp), tEXt, iTXt and compressed iTXt under `XML:com.adobe.xmp`', () => {
    expect(analyze(hostile.pngAround('z.png', [zTXt('XML:com.adobe.xmp', utf8(packet))]))).toEqual(expected);
    expect(analyze(hostile.pngAround('t.png', [tEXt('XML:com.adobe.xmp', utf8(packet))]))).toEqual(expected);
    expect(analyze(hostile.pngAround('i.png', [iTXt('XML:com.adobe.xmp', packet)]))).toEqual(expected);
    const compressed = iTXt('XML:com.adobe.xmp', packet, { compressed: true });
    expect(analyze(hostile.pngAround('ic.png', [compressed]))).toEqual(expected);
  });

  it("reads ImageMagick's hex `Raw profile type xmp` and `APP1` profiles, compressed or not", () => {
    const profile = rawProfile('xmp', utf8(packet));
    expect(analyze(hostile.pngAround('r.png', [zTXt('Raw profile type xmp', profile)]))).toEqual(expected);
    expect(analyze(hostile.pngAround('rt.png', [tEXt('Raw profile type xmp', profile)]))).toEqual(expected);
    const app1 = rawProfile('APP1', Buffer.concat([latin('http://ns.adobe.com/xap/1.0/\0'), utf8(packet)]));
    expect(analyze(hostile.pngAround('a.png', [zTXt('Raw profile type APP1', app1)]))).toEqual(expected);
  });

  it('does not read XMP in an iTXt chunk with a language tag (exiftool makes it another tag), nor an unknown method', () => {
    const tagged = iTXt('XML:com.adobe.xmp', packet, { language: 'de' });
    expect(analyze(hostile.pngAround('l.png', [tagged])).authors).toEqual([]);
    const method1 = pngChunk('zTXt', Buffer.concat([latin('XML:com.adobe.xmp\0\x01'), utf8(packet)]));
    expect(analyze(hostile.pngAround('m.png', [method1])).authors).toEqual([]);
  });

  it('lets a later packet replace an earlier one, as exiftool reports duplicates', () => {
    const file = hostile.pngAround('two.png', [
      iTXt('XML:com.adobe.xmp', xmp(['First Writer'], { title: 'Kept' })),
      zTXt('Raw profile type xmp', rawProfile('xmp', utf8(xmp(['Second Writer'])))),
    ]);
    expect(analyze(file)).toEqual({ authors: ['Second Writer'], source: 'xmp:dc:creator', title: 'Kept' });
  });
});

describe('the author fallbacks, in order: XMP dc:creator, IPTC By-line, EXIF Artist, XMP tiff:Artist, EXIF XPAuthor, PNG Author', () => {
  const byLine = zTXt(
    'Raw profile type iptc',
    rawProfile('iptc', iim([UTF8_CHARSET, [2, 80, utf8('李小龙')]])),
  );
  const artist = zTXt(
    'Raw profile type exif',
    rawProfile('exif', Buffer.concat([latin('Exif\0\0'), tiffWithArtist('Exif Artist')])),
  );
  const author = tEXt('Author', latin('J\xfcrgen M\xfcller'));

  it('takes each source when the ones before it name nobody, and says which', () => {
    expect(analyze(hostile.pngAround('1.png', [author, artist, byLine]))).toMatchObject({
      authors: ['李小龙'],
      source: 'iptc:By-line',
    });
    expect(analyze(hostile.pngAround('2.png', [author, artist]))).toMatchObject({
      authors: ['Exif Artist'],
      source: 'exif:Artist',
    });
    // tEXt is Latin-1 by the PNG specification (exiftool reads it so).
    expect(analyze(hostile.pngAround('3.png', [author]))).toMatchObject({
      authors: ['Jürgen Müller'],
      source: 'png:Author',
    });
  });

  it('passes over a source that names only a placeholder', () => {
    const unknown = iTXt('XML:com.adobe.xmp', xmp(['Unknown']));
    expect(analyze(hostile.pngAround('4.png', [unknown, artist]))).toMatchObject({ source: 'exif:Artist' });
  });

  it('reads PNG Author as exiftool does: `author` too, iTXt as UTF-8, with a language tag too (issue 39)', () => {
    expect(analyze(hostile.pngAround('5.png', [tEXt('author', latin('Ada Lovelace'))])).authors).toEqual([
      'Ada Lovelace',
    ]);
    expect(
      analyze(hostile.pngAround('6.png', [iTXt('Author', '山田太郎', { compressed: true })])).authors,
    ).toEqual(['山田太郎']);
    // exiftool reads it as `PNG:Author-de`; it was refused with AUTHOR_REQUIRED before issue 39.
    const tagged = iTXt('Author', 'Björn Ødegård', { language: 'de' });
    expect(analyze(hostile.pngAround('7.png', [tagged, iTXt('Title', 'Fjord', { language: 'de' })]))).toEqual(
      {
        authors: ['Björn Ødegård'],
        source: 'png:Author',
        title: 'Fjord',
      },
    );
    // One without a tag wins, before or after it; a tagged XMP packet is still not read.
    const plain = tEXt('Author', latin('Ada Lovelace'));
    expect(analyze(hostile.pngAround('7b.png', [plain, tagged])).authors).toEqual(['Ada Lovelace']);
    expect(analyze(hostile.pngAround('7c.png', [tagged, plain])).authors).toEqual(['Ada Lovelace']);
    const taggedXmp = iTXt('XML:com.adobe.xmp', xmp(['Xmp Person']), { language: 'de' });
    expect(analyze(hostile.pngAround('7d.png', [taggedXmp, tagged])).source).toBe('png:Author');
  });

  it('reads XMP `tiff:Artist` and Windows’ EXIF `XPAuthor` (split at `;`) after EXIF Artist (issue 39)', () => {
    const tiffArtist = (name: string) =>
      `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"><tiff:Artist>${name}</tiff:Artist></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const jpegXmp = (packet: string): [number, Buffer] => [
      0xe1,
      Buffer.concat([latin('http://ns.adobe.com/xap/1.0/\0'), utf8(packet)]),
    ];
    expect(analyze(hostile.jpegAround('t.jpg', [jpegXmp(tiffArtist('Zoë Ørsted'))]))).toMatchObject({
      authors: ['Zoë Ørsted'],
      source: 'xmp:tiff:Artist',
    });
    // The attribute form, as exiftool writes simple properties in some packets.
    const attribute = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Artist="Ada &amp; Bo"/></rdf:RDF></x:xmpmeta>`;
    expect(analyze(hostile.jpegAround('a.jpg', [jpegXmp(attribute)])).authors).toEqual(['Ada & Bo']);
    // XPAuthor: UCS-2 little-endian even in a big-endian block, NUL-terminated; Windows joins people with `;`.
    const xp = Buffer.from('Björn Ødegård; 李小龙\0', 'utf16le');
    for (const bigEndian of [false, true]) {
      const exif = Buffer.concat([latin('Exif\0\0'), tiffWithTags([[0x9c9d, 1, xp]], bigEndian)]);
      expect(analyze(hostile.jpegAround('x.jpg', [[0xe1, exif]]))).toMatchObject({
        authors: ['Björn Ødegård', '李小龙'],
        source: 'exif:XPAuthor',
      });
    }
    // The order: EXIF Artist, then tiff:Artist, then XPAuthor, then PNG Author.
    const both = tiffWithTags([
      [0x9c9d, 1, xp],
      [0x013b, 2, latin('Exif Artist\0')],
    ]);
    expect(analyze(hostile.pngAround('o.png', [pngChunk('eXIf', both)])).source).toBe('exif:Artist');
    const xpOnly = pngChunk('eXIf', tiffWithTags([[0x9c9d, 1, xp]]));
    const tagged = iTXt('XML:com.adobe.xmp', tiffArtist('Tiff Artist'));
    expect(analyze(hostile.pngAround('o2.png', [xpOnly, tagged])).source).toBe('xmp:tiff:Artist');
    expect(analyze(hostile.pngAround('o3.png', [tEXt('Author', latin('Png')), xpOnly])).source).toBe(
      'exif:XPAuthor',
    );
  });

  it('reads EXIF Artist big-endian from a PNG eXIf chunk, IPTC from a Photoshop 8bim profile', () => {
    expect(
      analyze(hostile.pngAround('8.png', [pngChunk('eXIf', tiffWithArtist('Zoë Ørsted', true))])),
    ).toMatchObject({
      authors: ['Zoë Ørsted'],
      source: 'exif:Artist',
    });
    const psd = irb([
      [0x03ed, Buffer.alloc(16)],
      [0x0404, iim([[2, 80, latin('Bj\xf6rn')]])],
    ]);
    expect(
      analyze(hostile.pngAround('9.png', [zTXt('Raw profile type 8bim', rawProfile('8bim', psd))])),
    ).toMatchObject({
      authors: ['Björn'],
      source: 'iptc:By-line',
    });
  });

  it('of several blocks of a kind takes what exiftool reports: the last EXIF and PNG Author, the first IPTC', () => {
    const exifA = pngChunk('eXIf', tiffWithArtist('Exif A'));
    const exifB = zTXt('Raw profile type exif', rawProfile('exif', tiffWithArtist('Exif B')));
    expect(analyze(hostile.pngAround('e.png', [exifA, exifB])).authors).toEqual(['Exif B']);
    const authors = [tEXt('Author', latin('Author A')), tEXt('Author', latin('Author B'))];
    expect(analyze(hostile.pngAround('p.png', authors)).authors).toEqual(['Author B']);
    const iptc = (name: string) =>
      zTXt('Raw profile type iptc', rawProfile('iptc', iim([[2, 80, latin(name)]])));
    expect(analyze(hostile.pngAround('i.png', [iptc('IPTC A'), iptc('IPTC B')])).authors).toEqual(['IPTC A']);
    const app1 = (name: string): [number, Buffer] => [
      0xe1,
      Buffer.concat([latin('Exif\0\0'), tiffWithArtist(name)]),
    ];
    expect(analyze(hostile.jpegAround('e.jpg', [app1('Exif A'), app1('Exif B')])).authors).toEqual([
      'Exif B',
    ]);
  });

  it('takes the title from IPTC Object Name, then PNG Title, when XMP has none', () => {
    const named = zTXt('Raw profile type iptc', rawProfile('iptc', iim([[2, 5, latin('Objekt')]])));
    expect(analyze(hostile.pngAround('10.png', [author, tEXt('Title', latin('Titel')), named])).title).toBe(
      'Objekt',
    );
    expect(analyze(hostile.pngAround('11.png', [author, tEXt('Title', latin('Titel'))])).title).toBe('Titel');
  });
});

describe('JPEG: APP13 IPTC and Extended XMP (XMP Specification Part 3)', () => {
  const photoshop = (data: Buffer): [number, Buffer] => [
    0xed,
    Buffer.concat([latin('Photoshop 3.0\0'), data]),
  ];

  it('reads By-line from a resource block Photoshop split over two APP13 segments, UTF-8 by 1:90', () => {
    const block = irb([[0x0404, iim([UTF8_CHARSET, [2, 80, utf8('山田太郎')], [2, 80, utf8('Ana Lima')]])]]);
    // Each segment starts with the `Photoshop 3.0` header; exiftool joins consecutive ones, and so must we.
    const joined = hostile.jpegAround('joined.jpg', [
      photoshop(block.subarray(0, 9)),
      photoshop(block.subarray(9)),
    ]);
    expect(analyze(joined)).toMatchObject({ authors: ['山田太郎', 'Ana Lima'], source: 'iptc:By-line' });
    // A continuation without the header is not Photoshop data: the first half alone holds no whole resource.
    const headless = hostile.jpegAround('headless.jpg', [
      photoshop(block.subarray(0, 9)),
      [0xed, block.subarray(9)],
    ]);
    expect(analyze(headless).authors).toEqual([]);
  });

  it('reads IPTC without a coded character set as Latin (exiftool’s default)', () => {
    const file = hostile.jpegAround('latin.jpg', [
      photoshop(irb([[0x0404, iim([[2, 80, latin('Zo\xeb')]])]])),
    ]);
    expect(analyze(file).authors).toEqual(['Zoë']);
  });

  const guid = `${'A'.repeat(31)}B`;
  const extensionChunk = (id: string, total: number, offset: number, data: Buffer): [number, Buffer] => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(total, 0);
    head.writeUInt32BE(offset, 4);
    return [0xe1, Buffer.concat([latin('http://ns.adobe.com/xmp/extension/\0'), latin(id), head, data])];
  };
  const standard = (id: string): [number, Buffer] => [
    0xe1,
    Buffer.concat([latin('http://ns.adobe.com/xap/1.0/\0'), utf8(xmp([], { title: 'Standard', guid: id }))]),
  ];

  it('reads dc:creator from the Extended XMP the standard packet names, its chunks in any order', () => {
    const extension = utf8(xmp(['Extended Writer', '李小龙']));
    const half = 100;
    const file = hostile.jpegAround('ext.jpg', [
      standard(guid),
      extensionChunk(guid, extension.length, half, extension.subarray(half)),
      extensionChunk(guid, extension.length, 0, extension.subarray(0, half)),
    ]);
    expect(analyze(file)).toEqual({
      authors: ['Extended Writer', '李小龙'],
      source: 'xmp:dc:creator',
      title: 'Standard',
    });
    // Another GUID than the one named, or a chunk missing: not read (exiftool warns and skips it).
    const other = hostile.jpegAround('other.jpg', [
      standard(guid),
      extensionChunk('C'.repeat(32), extension.length, 0, extension),
    ]);
    expect(analyze(other).authors).toEqual([]);
    const missing = hostile.jpegAround('missing.jpg', [
      standard(guid),
      extensionChunk(guid, extension.length, half, extension.subarray(half)),
    ]);
    expect(analyze(missing).authors).toEqual([]);
  });

  it('refuses an Extended XMP past `xmp_bytes` when the author may be in it', () => {
    const file = hostile.jpegAround('huge.jpg', [
      standard(guid),
      extensionChunk(guid, ANALYSIS_LIMITS.xmp_bytes + 1, 0, utf8('<x:xmpmeta')),
    ]);
    expect(refusal(file).extra.limit).toBe('xmp_bytes');
  });
});

describe('bounded: compressed metadata is inflated within its limits, never whole', () => {
  it('refuses a compressed-XMP bomb (16 KB inflating to 16 MiB) at `xmp_bytes`', () => {
    const error = refusal(hostile.pngCompressedXmpBomb());
    expect(error).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
    expect(error.extra.limit).toBe('xmp_bytes');
    expect(error.message).toMatch(/inflates to more than 1048576 bytes/);
  });

  it('refuses one text chunk past `image_text_bytes`, and many together past `image_inflated_bytes`', () => {
    const one = ANALYSIS_LIMITS.image_text_bytes;
    expect(refusal(hostile.pngCompressedTextBombs(1, one + 1)).extra.limit).toBe('image_text_bytes');
    const within = hostile.pngCompressedTextBombs(1, one);
    expect(analyze(within).authors).toEqual(['Hostile Tester']);
    const count = Math.ceil(ANALYSIS_LIMITS.image_inflated_bytes / one) + 1;
    expect(refusal(hostile.pngCompressedTextBombs(count, one)).extra.limit).toBe('image_inflated_bytes');
  });

  it('reads a raw profile of 4 MiB of line breaks in one pass (its header pattern backtracks: bounded to 512)', () => {
    const lines = zTXt('Raw profile type xmp', Buffer.alloc(ANALYSIS_LIMITS.image_text_bytes, 0x0a));
    expect(analyze(hostile.pngAround('lines.png', [lines])).authors).toEqual([]);
  });

  it('does not inflate text chunks it does not read', () => {
    const comment = pngChunk('zTXt', Buffer.concat([latin('Comment\0\0'), latin('not zlib at all')]));
    const file = hostile.pngAround('c.png', [comment, iTXt('XML:com.adobe.xmp', xmp(['Ada Lovelace']))]);
    expect(analyze(file).authors).toEqual(['Ada Lovelace']);
  });

  it('refuses more than `xmp_packets` XMP packets (each is parsed)', () => {
    const packets = (n: number) =>
      Array.from({ length: n }, () => tEXt('XML:com.adobe.xmp', utf8(xmp(['A B']))));
    expect(analyze(hostile.pngAround('16.png', packets(ANALYSIS_LIMITS.xmp_packets))).authors).toEqual([
      'A B',
    ]);
    const error = refusal(hostile.pngAround('17.png', packets(ANALYSIS_LIMITS.xmp_packets + 1)));
    expect(error.extra.limit).toBe('xmp_packets');
  });
});

describe('every new reader survives damage: mutated files are read or refused with an ApiError, never a crash', () => {
  /** mulberry32, so a failure names a reproducible round. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const packet = xmp(['Ana Lima'], { guid: 'D'.repeat(32) });
  const EXTENSION = utf8(xmp([], { title: 'Extended' }));
  const EXTENSION_HEAD = Buffer.alloc(8); // full length, then this chunk's offset (0)
  EXTENSION_HEAD.writeUInt32BE(EXTENSION.length, 0);
  const sources = [
    hostile.pngAround('all.png', [
      zTXt('XML:com.adobe.xmp', utf8(packet)),
      zTXt(
        'Raw profile type iptc',
        rawProfile('iptc', irb([[0x0404, iim([UTF8_CHARSET, [2, 80, utf8('李')]])]])),
      ),
      pngChunk('eXIf', tiffWithArtist('Exif Artist')),
      iTXt('Author', 'Zoë', { compressed: true }),
    ]),
    hostile.jpegAround('all.jpg', [
      [0xe1, Buffer.concat([latin('Exif\0\0'), tiffWithArtist('Exif Artist', true)])],
      [0xe1, Buffer.concat([latin('http://ns.adobe.com/xap/1.0/\0'), utf8(packet)])],
      [
        0xe1,
        Buffer.concat([
          latin(`http://ns.adobe.com/xmp/extension/\0${'D'.repeat(32)}`),
          EXTENSION_HEAD,
          EXTENSION,
        ]),
      ],
      [0xed, Buffer.concat([latin('Photoshop 3.0\0'), irb([[0x0404, iim([[2, 80, latin('Bj\xf6rn')]])]])])],
    ]),
  ];
  for (const source of sources) {
    it(`survives 400 truncations and byte mutations of ${source.name}`, () => {
      // The readers themselves, not analyzeFile (which turns any stray exception into a 422): a RangeError
      // from reading past a block's end would fail here.
      const read = (bytes: Uint8Array) => {
        const type = source.name.endsWith('.png') ? 'image/png' : 'image/jpeg';
        return readImageMetadata(readImageContainer(bytes, type).blocks);
      };
      expect(read(source.bytes).authors.length).toBeGreaterThan(0);
      const next = random(source.bytes.length);
      for (let round = 0; round < 400; round++) {
        const bytes = Buffer.from(source.bytes);
        let mutated = bytes;
        if (round % 4 === 0) mutated = bytes.subarray(0, Math.floor(next() * bytes.length));
        else
          for (let flips = 1 + Math.floor(next() * 6); flips > 0; flips--)
            bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        try {
          read(mutated);
        } catch (error) {
          expect(
            asApiError(error),
            `${source.name} round ${round}: ${(error as Error).stack}`,
          ).toBeInstanceOf(ApiError);
          expect((asApiError(error) as ApiError).status).toBeLessThan(500);
        }
      }
    });
  }
});
