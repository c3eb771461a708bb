// Issue 25 for Markdown and text: files written during the run by real tools (gray-matter, smol-toml, Hugo,
// Pandoc, iconv; see text-writers.ts) are signed through the real server over HTTP, against a real bunker,
// with the authors, title and `author_source` each writer put there (Pandoc's own reading of its files
// agreeing); UTF-16 files are kept and served byte for byte; hostile blocks are refused with 422 and the
// limit they hit.
import { readFile } from 'node:fs/promises';
import matter from 'gray-matter';
import { describe, expect, it } from 'vitest';
import * as hostile from '../../server/test/hostile-files.js';
import { signOverHttp } from './server-process.js';
import { readWithPandoc, requireTextTools, withoutByteOrderMark, writeTexts } from './text-writers.js';
import { useWriterRun } from './writer-run.js';

describe('Markdown and text written by real tools sign with the author each put there (issue 25)', () => {
  const run = useWriterRun('siegel-text-writers-', async (dir) => {
    await requireTextTools();
    return writeTexts(dir);
  });

  it('signs every writer’s file (ASCII, accented, CJK, several authors) with its authors, title and source', async () => {
    const failures: string[] = [];
    const sources = new Set<string>();
    for (const text of run.files) {
      const bytes = await readFile(text.path);
      const name = `${text.id.replaceAll(/[^a-z0-9]+/gi, '-')}.${text.id.includes('pelican') ? 'txt' : 'md'}`;
      const { status, body } = await signOverHttp(run.server, name, bytes);
      const got = {
        status,
        authors: body.metadata?.authors,
        title: body.metadata?.title,
        source: body.metadata?.author_source,
      };
      const want = { status: 200, authors: text.authors, title: text.title, source: text.source };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        failures.push(
          `${text.id}: run.server ${JSON.stringify(got)} ${body.message ?? ''}, written ${JSON.stringify(want)}`,
        );
      }
      sources.add(text.source.replace(/:.*/, ''));
    }
    expect(failures).toEqual([]);
    expect([...sources].sort()).toEqual(['json', 'mmd', 'pandoc', 'toml', 'yaml']);
    expect(run.files.length).toBeGreaterThanOrEqual(100);
    // iconv wrote UTF-16 with its byte order mark, as the server reads it.
    const iconv = run.files.filter((text) => text.id.endsWith('in iconv-utf-16'));
    expect(iconv.length).toBe(20);
    for (const text of iconv) expect([0xfe, 0xff]).toContain((await readFile(text.path))[0]);
  }, 180_000);

  it('Pandoc reads the authors and title of the files it wrote as the server does', async () => {
    const written = run.files.filter((text) => text.pandocReader !== undefined);
    expect(written.length).toBe(16);
    for (const text of written) {
      const reading = await readWithPandoc(text.path, text.pandocReader ?? '');
      expect(reading.title, text.id).toBe(text.title);
      // Pandoc's MultiMarkdown reader keeps `author: A; B` as one name; its writer meant several.
      const authors =
        text.pandocReader === 'markdown_mmd'
          ? reading.authors.flatMap((name) => name.split('; '))
          : reading.authors;
      expect(authors, text.id).toEqual(text.authors);
    }
  }, 60_000);

  it('keeps a UTF-16 file as uploaded: served byte for byte as `charset=utf-16`, shown decoded on its page', async () => {
    const text = run.files.find((candidate) => candidate.id === 'gray-matter toml several in utf-16be');
    expect(text).toBeDefined();
    const bytes = await readFile(text?.path ?? '');
    expect([...bytes.subarray(0, 2)]).toEqual([0xfe, 0xff]);
    const { status, body } = await signOverHttp(
      run.server,
      'copy-of-utf16.txt',
      Buffer.concat([bytes, Buffer.from([0, 0x0a])]),
    );
    expect(status).toBe(200);
    expect(body.metadata).toMatchObject({
      authors: ['Ana Lima', 'Björn Ødegård', '李小龙'],
      author_source: 'toml:authors',
    });
    const file = await fetch(body.urls.file);
    expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-16');
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.concat([bytes, Buffer.from([0, 0x0a])]))).toBe(
      true,
    );
    // A browser decodes it by its byte order mark, whatever the label: so does the event page.
    const page = await (await fetch(body.urls.static_page)).text();
    expect(page).toContain('# Überschrift gray-matter toml several');
  });

  it('refuses UTF-16 without a byte order mark (iconv -t UTF-16BE) with 415, saying what to do', async () => {
    const { status, body } = await signOverHttp(
      run.server,
      'no-bom.md',
      await withoutByteOrderMark(run.files[0]?.path ?? ''),
    );
    expect(status).toBe(415);
    expect(body).toMatchObject({ error: 'INVALID_FORMAT' });
    expect(body.message).toMatch(/UTF-16 without a byte order mark; save it as UTF-8/);
  });

  it('refuses hostile blocks with 422 and the limit they hit, through the worker', async () => {
    const cases: Array<[hostile.HostileFile, string | undefined, RegExp]> = [
      [hostile.tomlFrontmatterBomb(16 * 1024 * 1024), 'frontmatter_bytes', /larger than 65536/],
      [
        hostile.jsonFrontmatterBomb(16 * 1024 * 1024),
        'frontmatter_bytes',
        /JSON frontmatter is larger than 65536/,
      ],
      [hostile.jsonFrontmatterNested(30_000), 'frontmatter_nesting', /nests more than 64 levels/],
      [hostile.tomlFrontmatterNested(30_000), 'frontmatter_nesting', /nests more than 64 levels/],
      [hostile.utf16OddLength(), undefined, /odd number of bytes/],
    ];
    for (const [file, limit, message] of cases) {
      const { status, body } = await signOverHttp(run.server, file.name, file.bytes);
      expect(status, file.symptom).toBe(422);
      expect(body, file.symptom).toMatchObject({ success: false, error: 'INVALID_FORMAT' });
      expect(body.limit, file.symptom).toBe(limit);
      expect(body.message, file.symptom).toMatch(message);
    }
    expect(run.server.child.exitCode).toBeNull();
  });

  it('issue 39: R Markdown, Quarto and MDX files (any case) sign as Markdown and are served back as `.md`', async () => {
    const text = run.files.find((candidate) => candidate.id === 'pandoc markdown several');
    expect(text).toBeDefined();
    const written = await readFile(text?.path ?? '');
    for (const name of ['analysis.Rmd', 'report.qmd', 'intro.mdx', 'NOTES.MD']) {
      // 415 INVALID_FORMAT before issue 39 (`.MD` was read, the others refused).
      const bytes = Buffer.concat([written, Buffer.from(`\n${name}\n`)]);
      const { status, body } = await signOverHttp(run.server, name, bytes);
      expect([status, body.mime_type, body.metadata?.authors], name).toEqual([
        200,
        'text/markdown',
        text?.authors,
      ]);
      expect(body.urls.file, name).toMatch(/\.md$/);
      const served = await fetch(body.urls.file);
      expect(served.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes), name).toBe(true);
    }
  });

  it('issue 39: npm’s `Name <email> (url)` signs the name only — no address in the public event', async () => {
    const person = 'Ana Lima <ana@example.org> (https://ana.example)';
    const bytes = Buffer.from(matter.stringify('# Post\n', { title: 'Person', author: person }));
    expect(bytes.toString()).toContain('ana@example.org'); // gray-matter wrote it as given
    const { status, body } = await signOverHttp(run.server, 'person.md', bytes);
    expect([status, body.metadata?.authors]).toEqual([200, ['Ana Lima']]);
    expect(JSON.stringify(body.event)).not.toMatch(/ana@example\.org|ana\.example/);
  });

  it('issue 39: Jekyll and Docusaurus author keys are refused with what to write instead, not signed', async () => {
    for (const [data, keys] of [
      [{ title: 'Jekyll', author: 'ana' }, 'key `ana` (`author`)'],
      [{ title: 'Docusaurus', authors: ['slorber', 'yangshun'] }, 'keys `slorber`, `yangshun` (`authors`)'],
    ] as const) {
      const { status, body } = await signOverHttp(
        run.server,
        'keyed.md',
        Buffer.from(matter.stringify('# Post\n', data)),
      );
      expect([status, body.error], keys).toEqual([422, 'AUTHOR_REQUIRED']);
      expect(body.message).toContain(`names its author by the ${keys}, not by name`);
      expect(body.message).toMatch(/`author: Ana Lima` \(Docusaurus: `authors: \[\{ name: Ana Lima \}\]`\)/);
    }
  });

  it('a text that names nobody is still refused, the message naming every place read', async () => {
    const { status, body } = await signOverHttp(run.server, 'nobody.md', Buffer.from('# Nobody\n\nText.\n'));
    expect(status).toBe(422);
    expect(body.error).toBe('AUTHOR_REQUIRED');
    expect(body.message).toMatch(
      /frontmatter `author:` \(YAML, TOML or JSON\), a Pandoc title block.*`Author:` line/,
    );
  });
});
