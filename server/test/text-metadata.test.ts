// Issue 25, text: the author of a Markdown or text file wherever real writers put it — YAML, TOML and JSON
// frontmatter, a Pandoc title block, MultiMarkdown lines, keys in any case — in UTF-8 or UTF-16 with a byte
// order mark, and every decoding bounded.
import { describe, expect, it } from 'vitest';
import { contentTypeOf } from '../../packages/formats/src/file-formats.js';
import { detectFileType } from '../../packages/formats/src/file-type.js';
import { checkTextEncoding } from '../../packages/formats/src/text/encoding.js';
import { ApiError } from '../src/http/api-error.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { ANALYSIS_LIMITS } from '../src/metadata/limits.js';
import { readTextFileMetadata, readTextMetadata } from '../src/metadata/readers.js';
import { pageText } from '../src/web/event-page.js';
import { asApiError } from './format-refusal.js';
import * as hostile from './hostile-files.js';

const read = (text: string, markdown = true) => readTextMetadata(text, markdown);

/** `text` in UTF-16 with its byte order mark (in place of a UTF-8 one), little- or big-endian. */
function utf16(text: string, order: 'le' | 'be'): Buffer {
  const bytes = Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from(text.replace(/^\uFEFF/, ''), 'utf16le'),
  ]);
  return order === 'le' ? bytes : bytes.swap16();
}

/** The refusal `run` throws (the test fails when it returns instead). */
function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (asApiError(error) instanceof ApiError) return asApiError(error) as ApiError;
    throw error;
  }
  throw new Error('read, not refused');
}

describe('frontmatter in each syntax real writers use', () => {
  it('TOML between `+++` (Hugo, Zola) and after `---toml` (gray-matter)', () => {
    expect(read('+++\ntitle = "Drei Köpfe"\nauthor = "Ana Lima"\n+++\n\n# Heading\n')).toEqual({
      authors: ['Ana Lima'],
      authorSource: 'toml:author',
      title: 'Drei Köpfe',
    });
    expect(read('---toml\nauthors = ["Ana Lima", "李小龙"]\n---\n')).toMatchObject({
      authors: ['Ana Lima', '李小龙'],
      authorSource: 'toml:authors',
    });
  });

  it('JSON: Hugo’s bare object, `---json`, `;;;`, and JSON between plain `---` fences (gray-matter)', () => {
    const json = JSON.stringify({ title: 'T', author: 'Björn Ødegård' }, null, 2);
    for (const text of [
      `${json}\n\nBody`,
      `---json\n${json}\n---\n`,
      `;;;\n${json}\n;;;\n`,
      `---\n${json}\n---\n`,
    ]) {
      expect(read(text), text).toMatchObject({
        authors: ['Björn Ødegård'],
        authorSource: 'json:author',
        title: 'T',
      });
    }
    // Hugo's lexer: braces inside strings, and escaped quotes, do not count.
    expect(read('{"title": "a } \\" {", "author": "Ana Lima"}\n# H\n')).toMatchObject({
      authors: ['Ana Lima'],
      title: 'a } " {',
    });
  });

  it('YAML between `---` and `---` or `...` (Pandoc), after `---yaml`, and after blank lines (Hugo)', () => {
    for (const text of [
      '---\nauthor: Ana Lima\n...\n',
      '---yaml\nauthor: Ana Lima\n---\n',
      '--- yml\r\nauthor: Ana Lima\r\n---\r\n',
      '\n  \n---\nauthor: Ana Lima\n---\n',
    ]) {
      expect(read(text), text).toMatchObject({ authors: ['Ana Lima'], authorSource: 'yaml:author' });
    }
  });

  it('braces that are no JSON, a fence naming another language: text without metadata, not refused', () => {
    for (const text of [
      '{{< figure src="a.png" >}}\n# H\n',
      '{% include x.html %}\n# H\n',
      '{draft} notes\n# H\n',
    ]) {
      expect(read(text), text).toEqual({ authors: [], title: 'H' });
    }
    expect(read('---coffee\nauthor: "x"\n---\n# H\n')).toEqual({ authors: [], title: 'H' });
  });

  it('refuses frontmatter that is not valid in its syntax, saying which', () => {
    expect(() => read('+++\nauthor = Ana\n+++\n')).toThrow(/not valid TOML/);
    expect(() => read('{\n  "author": "Ana",\n}\n')).toThrow(/not valid JSON/);
    expect(() => read('---\nauthor: [Ana\n---\n')).toThrow(/not valid YAML/);
  });
});

describe('the other metadata blocks Markdown generators write', () => {
  it('a Pandoc title block: authors separated by `;` or on indented lines, the title continued', () => {
    // As `pandoc -t markdown-yaml_metadata_block -s` writes it.
    expect(read('% Drei Köpfe\n% Ana Lima\n  Björn Ødegård\n% 2024-05-01\n\nBody\n')).toEqual({
      authors: ['Ana Lima', 'Björn Ødegård'],
      authorSource: 'pandoc:title-block',
      title: 'Drei Köpfe',
    });
    expect(read('% A long\n  title\n% Ana Lima; Bo Ek;\n\n# Heading\n')).toMatchObject({
      authors: ['Ana Lima', 'Bo Ek'],
      title: 'A long title',
    });
    // An author without a title; the first heading is the title then.
    expect(read('%\n% 李小龙\n\n# Heading\n')).toEqual({
      authors: ['李小龙'],
      authorSource: 'pandoc:title-block',
      title: 'Heading',
    });
  });

  it('MultiMarkdown lines: keys in any case and spacing, continuation lines, repeated keys', () => {
    expect(
      read('Title: My Document\nAuthor: Fletcher T. Penney\n\t\tJohn Doe\nDate: July 25, 2005\n\nBody\n'),
    ).toEqual({
      authors: ['Fletcher T. Penney', 'John Doe'],
      authorSource: 'mmd:Author',
      title: 'My Document',
    });
    // Python-Markdown's meta: repeated keys add lines; MultiMarkdown ignores case and blanks in keys.
    expect(read('AUTHOR: Ana Lima\nBase Header Level: 2\nauthor: Bo Ek\n\n# H')).toMatchObject({
      authors: ['Ana Lima', 'Bo Ek'],
      authorSource: 'mmd:AUTHOR',
    });
    // Pandoc's MultiMarkdown writer joins authors with `;`; Pelican's `Authors:` with commas.
    expect(read('author: Ana Lima; Björn Ødegård\ntitle: T\n\nBody').authors).toEqual([
      'Ana Lima',
      'Björn Ødegård',
    ]);
    expect(read('Authors: Alexis Métaireau, Conrad Ninon\n\nBody').authors).toEqual([
      'Alexis Métaireau',
      'Conrad Ninon',
    ]);
    expect(read('Authors: Lima, Ana; Ek, Bo\n\nBody').authors).toEqual(['Lima, Ana', 'Ek, Bo']);
    // In plain text too, and ended by a `---` line.
    expect(read('Author: Ana Lima\n---\nText', false)).toMatchObject({ authors: ['Ana Lima'] });
  });

  it('Logseq page properties (`key:: value`, page links at their commas)', () => {
    expect(read('title:: Meine Seite\nauthor:: [[Ana Lima]], [[李小龙]]\n\n- first block\n')).toEqual({
      authors: ['Ana Lima', '李小龙'],
      authorSource: 'logseq:author',
      title: 'Meine Seite',
    });
  });

  it('lines that are prose are no metadata, nor are metadata lines past the limit (text, not refused)', () => {
    expect(read('Note: this is prose\nthat goes on.\n\n# H\n')).toEqual({ authors: [], title: 'H' });
    expect(read('\nAuthor: Ana Lima\n\nBody')).toEqual({ authors: [] });
    const long = `Author: Ana Lima\nNote: ${'x'.repeat(ANALYSIS_LIMITS.frontmatter_bytes)}\n\nBody`;
    expect(read(long)).toEqual({ authors: [] });
  });
});

describe('keys as real generators spell them', () => {
  it('in any case; `authors`, `creator`; a placeholder gives way to the next key', () => {
    expect(read('---\nAUTHOR: Ana Lima\nTitle: X\n---\n')).toMatchObject({
      authors: ['Ana Lima'],
      authorSource: 'yaml:AUTHOR',
      title: 'X',
    });
    expect(read('---\nauthor: unknown\nAuthors: [Ana Lima]\n---\n')).toMatchObject({
      authors: ['Ana Lima'],
      authorSource: 'yaml:Authors',
    });
    // Pandoc's EPUB metadata: creators with a role; an editor is no author.
    const epub =
      '---\ncreator:\n  - role: editor\n    text: Ed Itor\n  - role: author\n    text: Ana Lima\n---\n';
    expect(read(epub)).toMatchObject({ authors: ['Ana Lima'], authorSource: 'yaml:creator' });
  });

  it('Hugo’s `params.author`, Zola’s `extra.author` and `taxonomies.authors`, after the top level', () => {
    expect(read('+++\ntitle = "T"\n[params]\n  author = "Ana Lima"\n+++\n')).toMatchObject({
      authors: ['Ana Lima'],
      authorSource: 'toml:params.author',
    });
    expect(read('---\nParams:\n  Author: Ana Lima\n---\n').authorSource).toBe('yaml:Params.Author');
    expect(read('+++\n[extra]\nauthor = "Ana Lima"\n+++\n').authorSource).toBe('toml:extra.author');
    expect(read('+++\n[taxonomies]\nauthors = ["Ana Lima"]\n+++\n').authorSource).toBe(
      'toml:taxonomies.authors',
    );
    expect(read('+++\nauthor = "Bo Ek"\n[params]\nauthor = "Ana Lima"\n+++\n').authors).toEqual(['Bo Ek']);
  });

  it('people as objects: `{ name }`, Quarto’s `name: { given, family }`, CSL’s `{ given, family }`, `{ literal }`', () => {
    const text = [
      '---',
      'author:',
      '  - name: Ana Lima',
      '    affiliation: X',
      '  - name: { given: Björn, family: Ødegård }',
      '  - { given: 小龙, family: 李 }',
      '  - name: { literal: Cy Do }',
      '---',
    ].join('\n');
    expect(read(text).authors).toEqual(['Ana Lima', 'Björn Ødegård', '小龙 李', 'Cy Do']);
    expect(read('+++\n[author]\nname = "Ana Lima"\n+++\n').authors).toEqual(['Ana Lima']);
  });

  it('Obsidian links (its Web Clipper writes `"[[Name]]"`) name their note', () => {
    expect(read('---\nauthor:\n  - "[[Ana Lima]]"\n  - "[[People/Bo Ek|Bo]]"\n---\n').authors).toEqual([
      'Ana Lima',
      'Bo Ek',
    ]);
  });

  it('title and description: `Title`, a number as title, `summary`, `abstract`; a blank title gives way', () => {
    expect(read('---\ntitle: 1984\nsummary: S\n---\n# H')).toMatchObject({ title: '1984', description: 'S' });
    expect(read('+++\ntitle = ""\nauthor = "A B"\n+++\n# H').title).toBe('H');
    expect(read('Title:\nAuthor: A B\n\n# H').title).toBe('H');
    expect(read('---\nabstract: A\n---\n# H')).toMatchObject({ title: 'H', description: 'A' });
  });
});

describe('UTF-16 with a byte order mark reads as UTF-8 does', () => {
  const texts = [
    '---\nauthor: 李小龙\ntitle: Grüße\n---\n# H',
    '+++\nAuthor = "Björn Ødegård"\n+++\n\n## Zweite Ebene\n',
    '{\n  "author": ["Ana Lima", "Bo Ek"]\n}\n# J',
    '% Titel\n% Ana Lima; Bo Ek\n\nText',
    'Author: Ana Lima\n  李小龙\n\n# H',
    'Intro\u2028## Grüße aus Köln ##  \nmore',
    '\uFEFF---\r\nauthor: Åsa Öberg\r\n...\r\n# Ü',
  ];
  it('LE and BE, in place and from an odd offset', () => {
    for (const text of texts) {
      const expected = read(text);
      expect(expected.authors.length + (expected.title === undefined ? 0 : 1), text).toBeGreaterThan(0);
      const le = utf16(text, 'le');
      const shifted = Buffer.concat([Buffer.from([0]), le]).subarray(1);
      expect(shifted.byteOffset % 2).toBe(1);
      for (const bytes of [le, utf16(text, 'be'), shifted]) {
        expect(readTextFileMetadata(bytes, true), text).toEqual(expected);
      }
    }
  });

  it('the frontmatter limit counts characters in UTF-16 too', () => {
    const fits = `---\ntitle: ${'€'.repeat(ANALYSIS_LIMITS.frontmatter_bytes - 10)}\n---\n`;
    expect(readTextFileMetadata(utf16(fits, 'be'), true).title).toHaveLength(
      ANALYSIS_LIMITS.frontmatter_bytes - 10,
    );
    const past = `---\ntitle: ${'€'.repeat(ANALYSIS_LIMITS.frontmatter_bytes)}\n---\n`;
    expect(refusal(() => readTextFileMetadata(utf16(past, 'le'), true)).extra.limit).toBe(
      'frontmatter_bytes',
    );
  });

  it('is a supported text type, served as `charset=utf-16` and shown decoded on its event page', () => {
    const bytes = utf16('---\nauthor: Ana Lima\n---\n# Olá\n', 'be');
    expect(detectFileType(bytes, 'a.md')).toMatchObject({ kind: 'text', mimeType: 'text/markdown' });
    expect(analyzeFile(bytes, 'a.txt')).toMatchObject({ authors: ['Ana Lima'], authorSource: 'yaml:author' });
    expect(contentTypeOf('md', bytes)).toBe('text/markdown; charset=utf-16');
    expect(contentTypeOf('txt', Buffer.from('Olá'))).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf('png', bytes)).toBe('image/png');
    expect(pageText(bytes)).toBe('---\nauthor: Ana Lima\n---\n# Olá\n');
  });
});

describe('other encodings are refused, saying what to do', () => {
  const refuse = (bytes: Uint8Array) => refusal(() => checkTextEncoding(bytes, 'notes.txt'));

  it('UTF-16 without a byte order mark, UTF-32, Latin-1: 415', () => {
    const noBom = refuse(Buffer.from('Author: Ana Lima\n', 'utf16le'));
    expect(noBom).toMatchObject({ status: 415, code: 'INVALID_FORMAT' });
    expect(noBom.message).toMatch(/UTF-16 without a byte order mark/);
    expect(refuse(Buffer.from('\0A\0u\0t\0h\0o\0r', 'latin1')).message).toMatch(/UTF-16 without/);
    expect(refuse(Buffer.from([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0])).message).toMatch(/UTF-32/);
    expect(refuse(Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x41])).message).toMatch(/UTF-32/);
    expect(refuse(Buffer.from('Grüße', 'latin1'))).toMatchObject({ status: 415 });
    expect(refuse(Buffer.from('Grüße', 'latin1')).message).toMatch(/save it as UTF-8/);
  });

  it('broken UTF-16 (odd length, an unpaired surrogate, a NUL): 422', () => {
    const odd = hostile.utf16OddLength();
    expect(refusal(() => analyzeFile(odd.bytes, odd.name))).toMatchObject({ status: 422 });
    expect(refuse(odd.bytes).message).toMatch(/odd number of bytes/);
    expect(refuse(Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00])).message).toMatch(/unpaired surrogate/);
    expect(refuse(Buffer.from([0xfe, 0xff, 0x00, 0x41, 0x00, 0x00])).message).toMatch(/NUL/);
    // A megabyte boundary in the middle of a surrogate pair is no damage.
    const pairs = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x41, 0]),
      Buffer.from('😀'.repeat(300_000), 'utf16le'),
    ]);
    expect(() => checkTextEncoding(pairs, 'emoji.txt')).not.toThrow();
  });
});

describe('bounded: a hostile block is refused by the limit it hit, never parsed whole', () => {
  const limits = ANALYSIS_LIMITS;
  const refuse = (file: hostile.HostileFile) => refusal(() => analyzeFile(file.bytes, file.name));

  it('TOML and JSON frontmatter past `frontmatter_bytes` (Hugo’s JSON unclosed within the limit)', () => {
    expect(analyzeFile(hostile.tomlFrontmatterBomb(1000).bytes, 'a.md').authors).toEqual(['Hostile Tester']);
    expect(analyzeFile(hostile.jsonFrontmatterBomb(1000).bytes, 'a.md').authors).toEqual(['Hostile Tester']);
    for (const file of [
      hostile.tomlFrontmatterBomb(limits.frontmatter_bytes),
      hostile.jsonFrontmatterBomb(limits.frontmatter_bytes),
      hostile.jsonFrontmatterBomb(16 * 1024 * 1024),
    ]) {
      expect(refuse(file), file.name).toMatchObject({ status: 422, extra: { limit: 'frontmatter_bytes' } });
    }
    const title = `% ${'x'.repeat(limits.frontmatter_bytes)}\n% Ana Lima\n`;
    expect(refusal(() => read(title)).extra.limit).toBe('frontmatter_bytes');
  });

  it('JSON and TOML nested past `frontmatter_nesting`, read within it', () => {
    const depth = limits.frontmatter_nesting;
    for (const make of [hostile.jsonFrontmatterNested, hostile.tomlFrontmatterNested]) {
      expect(analyzeFile(make(depth - 2).bytes, 'a.md').authors).toEqual(['Hostile Tester']);
      const deep = make(20_000);
      expect(refuse(deep), deep.name).toMatchObject({ status: 422, extra: { limit: 'frontmatter_nesting' } });
      expect(refuse(deep).message).toMatch(/nests more than 64 levels/);
    }
    // Between `---` fences as gray-matter writes JSON, too.
    const fenced = `---\n{"author": "A B", "x": ${'['.repeat(5000)}${']'.repeat(5000)}}\n---\n`;
    expect(refusal(() => read(fenced)).extra.limit).toBe('frontmatter_nesting');
  });
});
