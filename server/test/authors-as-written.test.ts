// Issue 39, item 9: the author a careful user expects signed — the name as they wrote it, no address made
// public by surprise, a key that is not a name explained instead of signed — and the Markdown dialects the
// README names (R Markdown, Quarto, MDX) accepted. Where a real writer exists, the same is checked on its
// output in test/server/{image,pdf,text}-writers.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameOf, selectAuthors } from '../../packages/formats/src/author.js';
import { decodePdfText } from '../../packages/formats/src/pdf/text.js';
import type { ApiError } from '../src/http/api-error.js';
import { answerFor } from '../src/http/error-answers.js';
import { analyzeFile } from '../src/metadata/analyze-file.js';
import { requireAuthor } from '../src/signing/file-signer.js';
import { makeTestApp, signRequest, uploadForm } from './test-app.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const markdown = (frontmatter: string) => utf8(`---\n${frontmatter}\n---\n# Post\n`);

/** The `AUTHOR_REQUIRED` answer to `name` with `bytes`, as the API gives it (the test fails when it is signable). */
function refusal(bytes: Uint8Array, name: string): ApiError {
  try {
    requireAuthor(analyzeFile(bytes, name), name);
  } catch (error) {
    const answer = answerFor(error);
    if (answer !== undefined) return answer;
    throw error;
  }
  throw new Error(`${name} was signable`);
}

describe('R Markdown, Quarto and MDX are Markdown: signed, stored and served as `.md`', () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    t = await makeTestApp({ rateLimitPerMinute: 1000 });
  });
  afterAll(async () => t.close());

  // Refused with 415 before issue 39, though the README names their frontmatter.
  for (const name of ['analysis.Rmd', 'report.qmd', 'intro.mdx', 'NOTES.MD', 'Talk.QMD']) {
    it(`signs \`${name}\` and serves it back as text/markdown`, async () => {
      const bytes = markdown(`title: ${name}\nauthor: Ana Lima`);
      const response = await signRequest(t.app, uploadForm(name, bytes));
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ mime_type: 'text/markdown', metadata: { authors: ['Ana Lima'] } });
      expect(body.urls.file).toMatch(/\/documents\/[0-9a-f]{64}\.md$/);
      const served = await t.app.request(new URL(body.urls.file).pathname);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    });
  }
});

describe('npm’s person format: the name is signed, not the addresses beside it', () => {
  it('drops `<e-mail>` and a web or e-mail address in `(…)`, keeps other words in brackets', () => {
    expect(nameOf('Ana Lima <ana@example.org> (https://ana.example)')).toBe('Ana Lima');
    expect(
      selectAuthors([
        'Ana Lima <ana@example.org> (https://ana.example)',
        'Bo Ek (bo.example/blog)',
        'Cy Do <mailto:cy@example.org>',
        'Di Wu (di@example.org)',
        'Ed Ma (www.ed.example)',
        'Fay Ng (Photographer)',
        'Gus Ho (Jr.)',
        'Hal <3',
      ]),
    ).toEqual([
      'Ana Lima',
      'Bo Ek',
      'Cy Do',
      'Di Wu',
      'Ed Ma',
      'Fay Ng (Photographer)',
      'Gus Ho (Jr.)',
      'Hal <3',
    ]);
    // An address alone names nobody.
    expect(selectAuthors(['<ana@example.org>'])).toEqual([]);
    // Several people in one string keep their separators.
    expect(selectAuthors(['Ana Lima <ana@example.org>, Bo Ek <bo@example.org>'])).toEqual([
      'Ana Lima, Bo Ek',
    ]);
  });

  it('in the readers: frontmatter (a string, a list), a PDF /Author', () => {
    const text = analyzeFile(markdown('author: "Ana Lima <ana@example.org> (https://ana.example)"'), 'a.md');
    expect(text).toMatchObject({ authors: ['Ana Lima'], authorSource: 'yaml:author' });
    const list = analyzeFile(markdown('authors:\n  - Ana Lima <ana@example.org>\n  - Bo Ek'), 'b.md');
    expect(list.authors).toEqual(['Ana Lima', 'Bo Ek']);
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n3 0 obj\n<< /Author (Ana Lima <ana@example.org>; Bo Ek) >>\nendobj\ntrailer\n<< /Root 1 0 R /Info 3 0 R >>\n%%EOF\n',
      'latin1',
    );
    expect(analyzeFile(pdf, 'c.pdf').authors).toEqual(['Ana Lima', 'Bo Ek']);
  });
});

describe('author keys (Jekyll `_data/authors.yml`, Docusaurus `authors.yml`) are explained, not signed', () => {
  it('refuses a bare lowercase key with AUTHOR_REQUIRED naming the key and how to write the name', () => {
    for (const [frontmatter, keys, field] of [
      ['author: ana', '`ana`', '`author`'], // Jekyll (jekyll-seo-tag, minima)
      ['authors: slorber', '`slorber`', '`authors`'], // Docusaurus, one key
      ['authors: [slorber, yangshun]', '`slorber`, `yangshun`', '`authors`'], // Docusaurus, several
      ['authors:\n  - jane_doe\n  - name: Bo Ek', '`jane_doe`', '`authors`'], // keys and people mixed
    ] as const) {
      const error = refusal(markdown(frontmatter), 'post.md');
      expect(error, frontmatter).toMatchObject({ status: 422, code: 'AUTHOR_REQUIRED' });
      expect(error.message, frontmatter).toContain(
        `by the ${keys.includes(',') ? 'keys' : 'key'} ${keys} (${field})`,
      );
      expect(error.message).toMatch(
        /_data\/authors\.yml.*authors\.yml.*`author: Ana Lima`.*\{ name: Ana Lima \}/,
      );
    }
  });

  it('signs names as written: capitalised, with blanks, CJK, people as objects, a key beside a named field', () => {
    const read = (frontmatter: string) => analyzeFile(markdown(frontmatter), 'post.md');
    expect(read('author: Ana').authors).toEqual(['Ana']);
    expect(read('author: bell hooks').authors).toEqual(['bell hooks']);
    expect(read('author: 李小龙').authors).toEqual(['李小龙']);
    expect(read('authors:\n  - name: slorber\n    url: https://x.example').authors).toEqual(['slorber']);
    // Hugo: the top-level key is a taxonomy term, `params.author` the name.
    expect(read('authors: [ana]\nparams:\n  author: Ana Lima')).toMatchObject({
      authors: ['Ana Lima'],
      authorSource: 'yaml:params.author',
    });
    expect(read('author: ana\nparams:\n  author: Ana Lima').authorKeys).toBeUndefined();
  });
});

describe('a PDF text string in UTF-8 without a byte order mark (Ghostscript’s pdfmark)', () => {
  it('reads valid UTF-8 with non-ASCII characters as UTF-8, not as PDFDocEncoding mojibake', () => {
    // Before issue 39: `BjÃ¶rn ÃŸdegÃ¥rd`, as exiftool and pdf.js still show it.
    expect(decodePdfText(utf8('Björn Ødegård'))).toBe('Björn Ødegård');
    expect(decodePdfText(utf8('李小龙'))).toBe('李小龙');
    // PDFDocEncoding that is not valid UTF-8 stays PDFDocEncoding: `ö` alone, `ü` before ASCII, a lone `•`.
    expect(decodePdfText(Uint8Array.of(0x42, 0x6a, 0xf6, 0x72, 0x6e))).toBe('Björn');
    expect(decodePdfText(Uint8Array.of(0xfc, 0x41))).toBe('üA');
    expect(decodePdfText(Uint8Array.of(0x80, 0x20, 0x41))).toBe('• A');
    expect(decodePdfText(utf8('Ana Lima'))).toBe('Ana Lima');
  });
});
