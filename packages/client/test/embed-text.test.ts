// embedAuthor on Markdown and plain text: YAML frontmatter, read back with the `yaml` package (the parser the
// server uses); every other line and the body kept byte for byte. The server's reading is checked in
// test/client/embed-server.test.ts.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EmbedError, embedAuthor } from '../src/index.js';
import { AUTHOR_CASES, TEXTS } from './support/inputs.js';

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

/** The frontmatter (as the server finds it) parsed, and the text after it. */
function split(text: string): { data: Record<string, unknown>; body: string; source: string } {
  const match = /^(?:\ufeff)?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) throw new Error(`no frontmatter in ${JSON.stringify(text)}`);
  return { data: parse(match[1] as string), body: text.slice(match[0].length), source: match[1] as string };
}

describe('embedAuthor on Markdown and plain text', () => {
  it('writes author and title for every author case, keeping the other keys and the body', async () => {
    for (const { id, author, authors, title } of AUTHOR_CASES) {
      const markdown = split(decode(await embedAuthor(encode(TEXTS.markdown), { author, title })));
      expect(markdown.data, id).toEqual({
        layout: 'post',
        author: authors.length === 1 ? authors[0] : authors,
        date: '2026-01-01',
        tags: ['harbour', 'dawn'],
        title,
      });
      expect(markdown.body, id).toBe('# Harbour\n\nText.\n');
      // The lines of the other keys, as they were.
      expect(markdown.source, id).toContain('layout: post\n');
      expect(markdown.source, id).toContain('date: 2026-01-01\ntags:\n  - harbour\n  - dawn');
      expect(markdown.source, id).not.toContain('Old Name');

      const text = decode(await embedAuthor(encode(TEXTS.text), { author, title }));
      const plain = split(text);
      expect(plain.data, id).toEqual({ author: authors.length === 1 ? authors[0] : authors, title });
      expect(plain.body, id).toBe(TEXTS.text);
      expect(text.startsWith('---\r\n'), `${id}: the file's CRLF line breaks`).toBe(true);
    }
  });

  it('quotes values so that no name turns into another YAML type or breaks the YAML', async () => {
    for (const name of [
      'yes',
      'null',
      '123',
      '- x',
      '#hash',
      'a: b',
      '"quoted"',
      "it's",
      'back\\slash',
      '\u2028sep',
      '[x]',
    ]) {
      const { data } = split(decode(await embedAuthor(encode('# T\n'), { author: name, title: name })));
      expect(data, name).toEqual({ author: name.trim(), title: name.trim() });
    }
  });

  it('replaces `author` and `authors` however their value is written, and keeps a BOM', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['---\nauthors:\n- A\n# a comment\n- B\n\nlayout: x\n---\nbody', { author: 'Ana Lima', layout: 'x' }],
      ['---\nauthor: |\n  two\n  lines\nlayout: x\n---\n', { author: 'Ana Lima', layout: 'x' }],
      ['---\n"author": [A, B]\nauthor: C\n---\n', { author: 'Ana Lima' }],
      ['---\nlayout: x\n...\nbody', { layout: 'x', author: 'Ana Lima' }],
      ['---\n---\nbody\n', { author: 'Ana Lima' }],
      ['---\r\nlayout: x\r\n---\r\nbody', { layout: 'x', author: 'Ana Lima' }],
    ];
    for (const [input, want] of cases) {
      for (const bom of ['', '\ufeff']) {
        const output = await embedAuthor(encode(bom + input), { author: 'Ana Lima' });
        const text = decode(output);
        expect(text.startsWith(bom === '' ? '---' : '\ufeff---'), JSON.stringify(input)).toBe(true);
        expect(split(text).data, JSON.stringify(input)).toEqual(want);
        const body = /\n(?:---|\.\.\.)\r?\n([\s\S]*)$/.exec(input)?.[1];
        if (body !== undefined) expect(split(text).body, JSON.stringify(input)).toBe(body);
      }
    }
  });

  it('puts frontmatter before a text whose first line is `---` but that has none', async () => {
    const input = '---\nnot closed\n';
    const { data, body } = split(decode(await embedAuthor(encode(input), { author: 'Ana Lima' })));
    expect(data).toEqual({ author: 'Ana Lima' });
    expect(body).toBe(input);
  });

  it('refuses bytes that are no supported format and authors it cannot write', async () => {
    const cases: Array<[string, Uint8Array, unknown, string]> = [
      ['binary bytes', new Uint8Array([0, 1, 2, 3, 0xff]), 'Ana Lima', 'UNSUPPORTED_FORMAT'],
      [
        'Latin-1 text',
        new Uint8Array([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e]),
        'Ana Lima',
        'UNSUPPORTED_FORMAT',
      ],
      ['an empty name', encode('text'), '  ', 'INVALID_AUTHOR'],
      ['no names', encode('text'), [], 'INVALID_AUTHOR'],
      ['a line break in a name', encode('text'), 'Ana\nLima', 'INVALID_AUTHOR'],
      ['a lone surrogate', encode('text'), 'Ana \ud800', 'INVALID_AUTHOR'],
      ['a number', encode('text'), 42, 'INVALID_AUTHOR'],
    ];
    for (const [what, bytes, author, code] of cases) {
      const error = await embedAuthor(bytes, { author: author as string }).catch((caught: unknown) => caught);
      expect(error, what).toBeInstanceOf(EmbedError);
      expect((error as EmbedError).code, what).toBe(code);
    }
  });
});
