import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/api-error.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { ANALYSIS_LIMITS } from '../src/metadata/limits.js';
import { readTextFileMetadata, readTextMetadata, readXmp } from '../src/metadata/readers.js';
import { answerTo, asApiError } from './format-refusal.js';
import * as hostile from './hostile-files.js';
import { photoshopJpeg, photoshopXmp } from './photoshop-jpeg.js';
import { FIXTURES, makeTestApp, TOKEN } from './test-app.js';

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOURCES = [
  'png-author.png',
  'jpeg-multi-author.jpg',
  'gif-author.gif',
  'webp-author.webp',
  'webp-lossless-author.webp',
  'pdf-utf16-author.pdf',
  'pdf-pdfdoc-author.pdf',
  'pdf-objstm-author.pdf',
  'pdf-xmp-only.pdf',
  'md-list-authors.md',
];

describe('hostile input: mutated real files never escape as anything but a 4xx ApiError', () => {
  for (const name of SOURCES) {
    it(`survives 300 truncations and byte mutations of ${name}`, () => {
      const original = readFileSync(`${FIXTURES}${name}`);
      const next = random(name.length * 7919);
      for (let round = 0; round < 300; round++) {
        const bytes = Buffer.from(original);
        let mutated: Buffer;
        if (round % 3 === 0) {
          mutated = bytes.subarray(0, Math.floor(next() * bytes.length));
        } else {
          for (let flips = 1 + Math.floor(next() * 8); flips > 0; flips--) {
            bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
          }
          mutated = bytes;
        }
        try {
          analyzeFile(mutated, name);
        } catch (error) {
          expect(asApiError(error), `${name} round ${round}: ${(error as Error).stack}`).toBeInstanceOf(
            ApiError,
          );
          expect((asApiError(error) as ApiError).status).toBeLessThan(500);
        }
      }
    });
  }
});

/** The refusal `analyzeFile` throws for `file` (the test fails when it reads the file instead). */
function refusal(file: hostile.HostileFile): ApiError {
  try {
    analyzeFile(file.bytes, file.name);
  } catch (error) {
    if (asApiError(error) instanceof ApiError) return asApiError(error) as ApiError;
    throw error;
  }
  throw new Error(`${file.name} was read, not refused`);
}

describe('hostile input: the reproductions of issue 10, each read in linear time or refused by a named limit', () => {
  it('reads the 12 KB PDF whose object stream has 3 000 entries pointing at one 4 MiB string (froze it 6 min)', () => {
    const file = hostile.pdfObjectStreamBomb();
    expect(file.bytes.length).toBeLessThan(16 * 1024);
    // `/Info` is one of those entries, a string and not a dictionary: read once, it names no author.
    expect(analyzeFile(file.bytes, file.name).authors).toEqual([]);
  });

  it('reads its 2 KB variant (400 entries, 1 MiB string)', () => {
    const file = hostile.pdfObjectStreamBomb(400, 1024 * 1024);
    expect(file.bytes.length).toBeLessThan(3 * 1024);
    expect(analyzeFile(file.bytes, file.name).authors).toEqual([]);
  });

  it('refuses the PDF of 60 000 objects lacking `endstream` past `pdf_object_streams`', () => {
    const error = refusal(hostile.pdfWithoutEndstream());
    expect(error).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
    expect(error.extra.limit).toBe('pdf_object_streams');
    expect(error.message).toBe(
      `This PDF has more than ${ANALYSIS_LIMITS.pdf_object_streams} object streams; it is not read`,
    );
  });

  it('reads the Markdown heading `# a` + 100 000 spaces + `b` (51 s in a backtracking regex)', () => {
    const file = hostile.markdownSpacedHeading();
    expect(analyzeFile(file.bytes, file.name).title).toBe('a b');
  });

  it('refuses the GIF with 70 000 XMP extensions: its first one has no magic trailer', () => {
    const error = refusal(hostile.gifManyXmpExtensions());
    expect(error).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
    expect(error.message).toContain('XMP magic trailer');
  });
});

describe('hostile input: every class, at and past its limit', () => {
  const limits = ANALYSIS_LIMITS;
  const cases: Array<[string, () => hostile.HostileFile, () => hostile.HostileFile, string]> = [
    [
      'GIF blocks',
      () => hostile.gifManyBlocks(1000),
      () => hostile.gifManyBlocks(limits.image_blocks),
      'image_blocks',
    ],
    [
      'PNG chunks',
      () => hostile.pngManyChunks(1000),
      () => hostile.pngManyChunks(limits.image_blocks),
      'image_blocks',
    ],
    [
      'WebP chunks',
      () => hostile.webpManyChunks(1000),
      () => hostile.webpManyChunks(limits.image_blocks),
      'image_blocks',
    ],
    [
      'JPEG segments',
      () => hostile.jpegManySegments(1000),
      () => hostile.jpegManySegments(limits.image_blocks),
      'image_blocks',
    ],
    [
      'PDF objects',
      () => hostile.pdfManyObjects(1000),
      () => hostile.pdfManyObjects(limits.pdf_objects + 1),
      'pdf_objects',
    ],
  ];
  for (const [what, within, past, limit] of cases) {
    it(`${what}: read below the limit, refused past it with \`limit: ${limit}\``, () => {
      const ok = within();
      const analysis = analyzeFile(ok.bytes, ok.name);
      if (ok.name.endsWith('.pdf')) expect(analysis.type.mimeType).toBe('application/pdf');
      else expect(analysis.authors).toEqual(['Hostile Tester']);
      const error = refusal(past());
      expect(error).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
      expect(error.extra.limit).toBe(limit);
      expect(error.toJSON()).toMatchObject({ error: 'INVALID_FORMAT', limit });
    });
  }

  it('PDF: object streams inflating past `pdf_inflated_bytes` together (deflate bombs) are refused', () => {
    const error = refusal(hostile.pdfObjectStreamZipBombs(5));
    expect(error.extra.limit).toBe('pdf_inflated_bytes');
  });

  it('PDF: one 4 MiB string named by /Author, /Title and /Subject is parsed once (was 4.7 s, 500 MB)', () => {
    const file = hostile.pdfSharedHugeString(4 * 1024 * 1024);
    const analysis = analyzeFile(file.bytes, file.name);
    expect(analysis.authors).toEqual([`${'a'.repeat(200)}…`]);
    expect(analysis.title).toBe(`${'a'.repeat(500)}…`);
  });

  it('PDF: trailers that make the reader walk the file over and over are refused (`pdf_parse_factor`)', () => {
    expect(refusal(hostile.pdfTrailerChainOverString()).extra.limit).toBe('pdf_parse_factor');
  });

  it('PDF: a /Prev chain that loops ends', () => {
    const file = hostile.pdfPrevLoop();
    expect(analyzeFile(file.bytes, file.name).authors).toEqual([]);
  });

  it('XMP: more than `xmp_namespaces` namespace declarations are refused (each element copied the scope)', () => {
    // xmpNamespaceFlood(n) declares 2n namespaces (n on the root, one on each of n elements), plus two.
    expect(() => readXmp(hostile.xmpNamespaceFlood(400))).not.toThrow();
    const flood = hostile.xmpNamespaceFlood(limits.xmp_namespaces / 2);
    const error = refusal(hostile.pngWithXmp('ns.png', flood));
    expect(error.extra.limit).toBe('xmp_namespaces');
  });

  it('YAML frontmatter: deep nesting and endless escapes are refused, never a crash', () => {
    for (const [name, yaml] of [
      ['nested.md', `k: ${'['.repeat(20_000)}${']'.repeat(20_000)}`],
      ['escapes.md', `k: "${'\\\n'.repeat(20_000)}`],
    ] as const) {
      const error = refusal(hostile.markdownFrontmatter(name, yaml));
      expect(error, name).toMatchObject({ status: 422, code: 'INVALID_FORMAT' });
    }
    const large = refusal(
      hostile.markdownFrontmatter('large.md', `k: ${'x'.repeat(limits.frontmatter_bytes)}`),
    );
    expect(large.extra.limit).toBe('frontmatter_bytes');
  });
});

describe('the heading and frontmatter scanners agree with the regular expressions they replace', () => {
  // The expressions of the previous reader (quadratic on long lines, so only run here on short input); the
  // frontmatter may follow blank lines since issue 25 (Hugo and Pandoc skip them).
  const HEADING = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/m;
  const FRONTMATTER = /^(?:[ \t]*\r?\n)*---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
  // Texts built from the pieces the expressions care about, so that every rule is met and broken often.
  const pick = <T>(next: () => number, items: readonly T[]): T =>
    items[Math.floor(next() * items.length)] as T;
  const INDENTS = ['', '', ' ', '  ', '   ', '    ', '\t'];
  const HASHES = ['', '#', '##', '###', '######', '#######'];
  const BLANKS = ['', ' ', '  ', '\t', ' \t'];
  const WORDS = ['', 'a', 'a b', 'x:', '#', 'a#', '-', '...'];
  const ENDS = ['', ' ', ' #', '##', ' \t#', '\t'];
  const BREAKS = ['\n', '\n', '\r\n', '\r', '\u2028'];
  const FENCES = ['---', '--- ', '---\t', '...', '....', '----', ' ---', 'x'];
  function randomText(next: () => number): string {
    let text = next() < 0.2 ? pick(next, ['\n', ' \n', '\r\n', '\t\r\n\n', '\r']) : '';
    text += next() < 0.5 ? `${pick(next, ['---', '--- ', '----'])}${pick(next, ['\n', '\r\n', ''])}` : '';
    for (let lines = Math.floor(next() * 5); lines > 0; lines--) {
      text +=
        next() < 0.3
          ? pick(next, FENCES)
          : pick(next, INDENTS) +
            pick(next, HASHES) +
            pick(next, BLANKS) +
            pick(next, WORDS) +
            pick(next, ENDS);
      text += pick(next, BREAKS);
    }
    return next() < 0.5 ? text : text.slice(0, -1);
  }

  it('on 20 000 random texts (deterministic), in UTF-8 and UTF-16', () => {
    const next = random(4242);
    for (let round = 0; round < 20_000; round++) {
      const text = randomText(next);
      const match = FRONTMATTER.exec(text);
      const expectedTitle = HEADING.exec(match ? text.slice(match[0].length) : text)?.[1];
      // The alphabet cannot spell `title:`, so the title is always the heading after the frontmatter (if
      // any): a frontmatter found where the expression finds none, or ending elsewhere, shows in the title.
      let found: ReturnType<typeof readTextMetadata>;
      // The same text in UTF-16 (issue 25) reads the same, code unit for code unit.
      const utf16 = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
      try {
        found = readTextMetadata(text, true);
      } catch {
        // Only frontmatter (not valid YAML) is refused.
        expect(match, JSON.stringify(text)).not.toBeNull();
        expect(answerTo(() => readTextFileMetadata(utf16, true)).code, JSON.stringify(text)).toBe(
          'INVALID_FORMAT',
        );
        continue;
      }
      expect(found.title, JSON.stringify(text)).toBe(expectedTitle);
      expect(readTextFileMetadata(utf16, true), JSON.stringify(text)).toEqual(found);
    }
  });
});

describe('a Photoshop JPEG whose XMP packet is followed by a NUL byte (issue 10: refused, exiftool reads it)', () => {
  const source = readFileSync(`${FIXTURES}jpeg-multi-author.jpg`);
  const jpeg = photoshopJpeg(source, ['Jürgen Müller', 'Ana Lima'], 'Hafen bei Nacht');

  it('is read: its authors and title', () => {
    expect(jpeg.includes(Buffer.from('<?xpacket end="w"?>\0\xff\xee', 'latin1'))).toBe(true);
    const analysis = analyzeFile(jpeg, 'hafen.jpg');
    expect(analysis.authors).toEqual(['Jürgen Müller', 'Ana Lima']);
    expect(analysis.title).toBe('Hafen bei Nacht');
    expect(analysis.dimensions).toEqual({ width: 80, height: 60 });
  });

  it('the packet is cut at its `<?xpacket end?>`: trailing NULs or bytes after it are not XML', () => {
    const packet = photoshopXmp(['Ana Lima'], 'T');
    expect(readXmp(`${packet}\0`).authors).toEqual(['Ana Lima']);
    expect(readXmp(`${packet}\0\0\0junk`).authors).toEqual(['Ana Lima']);
    // Without the end instruction, trailing NULs are dropped all the same.
    const bare = photoshopXmp(['Bo Ek'], 'T').replace(/<\?xpacket end="w"\?>$/, '');
    expect(readXmp(`${bare}\0\0`).authors).toEqual(['Bo Ek']);
  });

  it('is signable through the service (inspect, in its analysis worker)', async () => {
    const t = await makeTestApp();
    try {
      const body = new FormData();
      body.append('file', new Blob([jpeg as Uint8Array<ArrayBuffer>]), 'hafen.jpg');
      const response = await t.app.request('/api/inspect', {
        method: 'POST',
        body,
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(await response.json()).toMatchObject({
        success: true,
        signable: true,
        metadata: { authors: ['Jürgen Müller', 'Ana Lima'], title: 'Hafen bei Nacht' },
      });
    } finally {
      await t.close();
    }
  });
});
