// Markdown and text files written during the test run by real tools (issue 25): gray-matter's `stringify` (YAML
// with js-yaml, TOML with smol-toml as its engine, JSON), Hugo's `hugo convert` (its own TOML, JSON and YAML
// encoders), Pandoc's writers (YAML, title block, MultiMarkdown), and glibc's iconv for UTF-16. Each file
// says which authors, title and `author_source` the server should read; Pandoc's reading of the files it
// wrote is the reference for those. Pandoc, Hugo and iconv come from Debian (`.ci/run` installs them).
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import matter from 'gray-matter';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';

const run = promisify(execFile);

/** A file one writer made: what the server should read from it. */
export interface WrittenText {
  id: string;
  path: string;
  authors: string[];
  title: string;
  /** The `metadata.author_source` the server should answer. */
  source: string;
  /** The Pandoc format to read it back with, for the files Pandoc wrote. */
  pandocReader?: string;
}

/** ASCII, accented and CJK authors, and several. */
export const AUTHOR_SETS: ReadonlyArray<[string, string[]]> = [
  ['ascii', ['Ana Lima']],
  ['accented', ['Björn Ødegård']],
  ['cjk', ['李小龙']],
  ['several', ['Ana Lima', 'Björn Ødegård', '李小龙']],
];

/** Fails with what to install when a writer the tests need is missing (no test is skipped for it). */
export async function requireTextTools(): Promise<void> {
  for (const [command, args, apt] of [
    ['pandoc', ['--version'], 'pandoc'],
    ['hugo', ['version'], 'hugo'],
    ['iconv', ['--version'], 'libc-bin'],
  ] as const) {
    try {
      await run(command, [...args]);
    } catch {
      throw new Error(`\`${command}\` is not installed: apt-get install ${apt} (CI: .ci/run installs it)`);
    }
  }
}

const TOML_ENGINE = { parse: parseToml, stringify: (data: object) => stringifyToml(data) };
const BODY = (id: string) => `# Überschrift ${id}\n\nDer Text.\n`;

/** One author as a string, several as a list (how people write them). */
const authorField = (authors: string[]) => (authors.length === 1 ? authors[0] : authors);

/** Every writer, with every author set: the files, written into `dir`. */
export async function writeTexts(dir: string): Promise<WrittenText[]> {
  const written: WrittenText[] = [];
  const add = async (
    id: string,
    authors: string[],
    source: string,
    write: (path: string, title: string) => Promise<unknown>,
    pandocReader?: string,
  ) => {
    const path = join(dir, `${id.replaceAll(/[^a-z0-9]+/gi, '-')}.md`);
    const title = `Fjørd ${id}`;
    await write(path, title);
    written.push({ id, path, authors, title, source, ...(pandocReader ? { pandocReader } : {}) });
  };
  const stringify = (id: string, data: object, options?: object) => matter.stringify(BODY(id), data, options);
  for (const [set, authors] of AUTHOR_SETS) {
    // gray-matter (Eleventy, Astro, Gatsby, Obsidian plugins…): YAML by js-yaml, in the shapes generators use.
    const yamlShapes: Array<[string, string, (title: string) => object]> = [
      ['plain', 'yaml:author', (title) => ({ title, author: authorField(authors) })],
      ['capitalised', 'yaml:Author', (title) => ({ Title: title, Author: authorField(authors) })],
      [
        'docusaurus',
        'yaml:authors',
        (title) => ({ title, authors: authors.map((name) => ({ name, url: 'https://example.org' })) }),
      ],
      [
        'quarto',
        'yaml:author',
        (title) => ({ title, author: authors.map((name) => ({ name, affiliation: 'Uni' })) }),
      ],
      [
        'obsidian clipper',
        'yaml:author',
        (title) => ({ title, author: authors.map((name) => `[[${name}]]`) }),
      ],
      ['hugo params', 'yaml:params.author', (title) => ({ title, params: { author: authorField(authors) } })],
    ];
    for (const [shape, source, data] of yamlShapes) {
      const id = `gray-matter yaml ${shape} ${set}`;
      await add(id, authors, source, (path, title) => writeFile(path, stringify(id, data(title))));
    }
    const jekyll = `gray-matter yaml jekyll ${set}`;
    await add(jekyll, authors.slice(0, 1), 'yaml:author', (path, title) =>
      writeFile(path, stringify(jekyll, { title, author: { name: authors[0], email: 'a@example.org' } })),
    );
    // gray-matter with a TOML engine between `+++` (Hugo, Zola), and its JSON engine (between `---`).
    const toml = `gray-matter toml ${set}`;
    await add(toml, authors, 'toml:authors', (path, title) =>
      writeFile(
        path,
        stringify(
          toml,
          { title, authors },
          { language: 'toml', engines: { toml: TOML_ENGINE }, delimiters: '+++' },
        ),
      ),
    );
    const json = `gray-matter json ${set}`;
    await add(json, authors, 'json:author', (path, title) =>
      writeFile(path, stringify(json, { title, author: authorField(authors) }, { language: 'json' })),
    );
    // gray-matter reads a language after the opening fence (`---toml`, `---json`) but never writes one: the
    // fence is framed by hand around smol-toml's and JSON.stringify's output.
    const namedToml = `fenced ---toml ${set}`;
    await add(namedToml, authors, 'toml:author', (path, title) =>
      writeFile(
        path,
        `---toml\n${stringifyToml({ title, author: authorField(authors) })}\n---\n${BODY(namedToml)}`,
      ),
    );
    const namedJson = `fenced ---json ${set}`;
    await add(namedJson, authors, 'json:authors', (path, title) =>
      writeFile(path, `---json\n${JSON.stringify({ title, authors }, null, 2)}\n---\n${BODY(namedJson)}`),
    );
    // Hugo's bare JSON object, as JSON.stringify writes it with tabs.
    const hugoJson = `json.stringify hugo ${set}`;
    await add(hugoJson, authors, 'json:author', (path, title) =>
      writeFile(
        path,
        `${JSON.stringify({ title, author: authorField(authors), draft: false }, null, '\t')}\n\n${BODY(hugoJson)}`,
      ),
    );
    await writePandocTexts(set, authors, add);
    // Pelican's Markdown metadata (Python-Markdown's meta): `Authors:` separated by commas, as its docs show.
    const pelican = `pelican authors ${set}`;
    await add(pelican, authors, 'mmd:Authors', (path, title) =>
      writeFile(
        path,
        `Title: ${title}\nDate: 2024-05-01 10:20\nAuthors: ${authors.join(', ')}\n\n${BODY(pelican)}`,
      ),
    );
  }
  written.push(...(await writeHugoTexts(dir)));
  written.push(...(await writeUtf16Texts(written)));
  return written;
}

type Add = (
  id: string,
  authors: string[],
  source: string,
  write: (path: string, title: string) => Promise<unknown>,
  pandocReader?: string,
) => Promise<void>;

/** Pandoc's Markdown writers with `-s`: YAML, the title block, MultiMarkdown, GitHub-flavoured YAML. */
async function writePandocTexts(set: string, authors: string[], add: Add): Promise<void> {
  const writers: Array<[string, string, string]> = [
    ['markdown', 'yaml:author', 'markdown'],
    ['markdown-yaml_metadata_block', 'pandoc:title-block', 'markdown'],
    ['markdown_mmd', 'mmd:author', 'markdown_mmd'],
    ['gfm', 'yaml:author', 'markdown'],
  ];
  for (const [format, source, reader] of writers) {
    const id = `pandoc ${format} ${set}`;
    await add(
      id,
      authors,
      source,
      async (path, title) => {
        const input = `${path}.in`;
        await writeFile(input, BODY(id));
        const meta = [`title=${title}`, ...authors.map((name) => `author=${name}`)].flatMap((m) => ['-M', m]);
        await run('pandoc', ['-s', '-f', 'markdown', '-t', format, ...meta, '-o', path, input]);
      },
      reader,
    );
  }
}

/**
 * Hugo's own encoders: a site whose content is written in YAML (capitalised keys, as Hugo reads them, and
 * Hugo's `params`), converted by `hugo convert toTOML|toJSON|toYAML` — TOML between `+++`, a bare JSON
 * object, YAML — as a site switching its frontmatter format gets them.
 */
async function writeHugoTexts(dir: string): Promise<WrittenText[]> {
  const site = join(dir, 'hugo-site');
  await run('hugo', ['new', 'site', site]);
  await mkdir(join(site, 'content', 'posts'), { recursive: true });
  const posts: Array<{ name: string; authors: string[]; key: string; data: (title: string) => object }> = [];
  for (const [set, authors] of AUTHOR_SETS) {
    posts.push({
      name: `author-${set}`,
      authors,
      key: 'Author',
      data: (t) => ({ Title: t, Author: authorField(authors) }),
    });
    posts.push({
      name: `params-${set}`,
      authors,
      key: 'params.author',
      data: (t) => ({ title: t, params: { author: authorField(authors) } }),
    });
  }
  for (const post of posts) {
    const source = matter.stringify(BODY(post.name), post.data(`Fjørd hugo ${post.name}`));
    await writeFile(join(site, 'content', 'posts', `${post.name}.md`), source);
  }
  const written: WrittenText[] = [];
  for (const [command, syntax] of [
    ['toTOML', 'toml'],
    ['toJSON', 'json'],
    ['toYAML', 'yaml'],
  ] as const) {
    const out = join(dir, `hugo-${syntax}`);
    await run('hugo', ['convert', command, '--source', site, '--output', out]);
    for (const post of posts) {
      const path = join(out, 'content', 'posts', `${post.name}.md`);
      written.push({
        id: `hugo convert ${command} ${post.name}`,
        path,
        authors: post.authors,
        title: `Fjørd hugo ${post.name}`,
        source: `${syntax}:${post.key}`,
      });
    }
  }
  return written;
}

/**
 * UTF-16 with a byte order mark of some files written above: as glibc's `iconv -t UTF-16` writes it (the
 * mark, then this machine's order: `FF FE` and little-endian here, what Windows' Notepad saves as
 * "UTF-16 LE"), and big-endian (Notepad's "UTF-16 BE": Node's `utf16le` after `FF FE`, swapped).
 */
async function writeUtf16Texts(from: WrittenText[]): Promise<WrittenText[]> {
  const picks = from.filter((text) =>
    /^(gray-matter yaml plain|gray-matter toml|json.stringify hugo|pandoc markdown-yaml|pelican)/.test(
      text.id,
    ),
  );
  const written: WrittenText[] = [];
  for (const { pandocReader: _, ...text } of picks) {
    const iconv = await run('iconv', ['-f', 'UTF-8', '-t', 'UTF-16', text.path], { encoding: 'buffer' });
    const utf8 = await readFile(text.path, 'utf8');
    const be = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf8, 'utf16le')]).swap16();
    for (const [encoding, bytes] of [
      ['iconv-utf-16', iconv.stdout],
      ['utf-16be', be],
    ] as const) {
      const path = `${text.path.slice(0, -3)}-${encoding}.md`;
      await writeFile(path, bytes);
      written.push({ ...text, id: `${text.id} in ${encoding}`, path });
    }
  }
  return written;
}

/** `iconv -t UTF-16BE` of `path`: UTF-16 without a byte order mark, which the server refuses. */
export async function withoutByteOrderMark(path: string): Promise<Buffer> {
  return (await run('iconv', ['-f', 'UTF-8', '-t', 'UTF-16BE', path], { encoding: 'buffer' })).stdout;
}

/** The authors and title Pandoc reads from `path` in `format` (its JSON AST's metadata, as plain text). */
export async function readWithPandoc(
  path: string,
  format: string,
): Promise<{ authors: string[]; title: string }> {
  const { stdout } = await run('pandoc', ['-f', format, '-t', 'json', path]);
  const meta = (JSON.parse(stdout) as { meta: Record<string, PandocMeta> }).meta;
  const author = meta.author;
  const authors =
    author === undefined
      ? []
      : author.t === 'MetaList'
        ? (author.c as PandocMeta[]).map(plain)
        : [plain(author)];
  return { authors, title: meta.title === undefined ? '' : plain(meta.title) };
}

interface PandocMeta {
  t: string;
  c?: unknown;
}

/** The text of Pandoc inlines: `Str` and `Space` (all a name or title written here holds). */
function plain(value: PandocMeta): string {
  const inlines = (value.t === 'MetaInlines' ? value.c : [value]) as PandocMeta[];
  return inlines
    .map((inline) => (inline.t === 'Str' ? String(inline.c) : inline.t === 'Space' ? ' ' : ''))
    .join('');
}
