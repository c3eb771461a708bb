import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { integrationOptionsSchema } from '../../packages/core/src/integration/integration.js';
import { fencedBlocks, firstCommand } from '../support/readme-blocks.js';
import { README_COMMANDS, type ReadmeCommandBlock } from './readme-commands.js';

// Acceptance 5 of issue 12: the design lives in this repository, as docs/. Every docs page is linked from
// the root README; every relative link in the docs and the READMEs reaches a file (and a heading, when it
// names one); no source file or Markdown file points to a document kept outside the repository; and the
// error tables in docs/ name every error code the code has. Each checker is a plain function, also run on
// a small bad input below, so that a checker that finds nothing can be told from a repository that is fine.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A path relative to the repository root, with `/` separators. */
const repoPath = (path: string) => relative(ROOT, path).split('\\').join('/');

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.astro', '_site', '.bunker', 'data']);

/** Every file under `dir` whose name passes `keep`, skipping build output and dependencies. */
async function listFiles(dir: string, keep: (name: string) => boolean, skip = SKIP_DIRS): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path, keep, skip)));
    else if (keep(entry.name)) files.push(path);
  }
  return files;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Markdown links and headings

/** The Markdown text outside fenced code blocks and inline code spans, line by line (line numbers kept). */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/(`+)[^`]*?\1/g, '');
  });
}

/** Inline links `[text](target)` of a Markdown text: target and 1-based line. Images count too. */
function markdownLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  proseLines(markdown).forEach((text, index) => {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1] as string, line: index + 1 });
    }
  });
  return links;
}

/** The anchors GitHub gives the headings of a Markdown text (lowercase, punctuation dropped, `-` for spaces). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/**
 * The relative links of `file` (whose text is `markdown`) that reach nothing: a missing file or folder, or
 * a `#heading` that the target Markdown file (or the file itself) does not have. Links with a scheme
 * (`https:`, `mailto:`, `nostr:`) are not checked.
 */
async function brokenLinks(file: string, markdown: string): Promise<string[]> {
  const broken: string[] = [];
  for (const { target, line } of markdownLinks(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = decodeURIComponent(pathPart);
    const resolved =
      path === '' ? file : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path);
    const where = `${repoPath(file)}:${line} → ${target}`;
    if (!(await exists(resolved))) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md')) {
      const anchors = headingAnchors(resolved === file ? markdown : await readFile(resolved, 'utf8'));
      if (!anchors.has(anchor.toLowerCase())) broken.push(`${where}: no heading \`#${anchor}\``);
    }
  }
  return broken;
}

// ---------------------------------------------------------------------------------------------------------
// References to documents outside the repository

// Built from parts, so that this file does not trip its own check.
const WORD = ['DES', 'IGN'].join('');
const OUTSIDE = [
  { what: 'a shared folder beside the repository', pattern: new RegExp(['\\.\\.', 'shared'].join('/')) },
  { what: 'the team folder', pattern: new RegExp(['', 'work', 'shared'].join('/')) },
  { what: `the ${WORD.toLowerCase()} document`, pattern: new RegExp(`\\b${WORD}\\b`) },
];

/** Each line of `text` that points to a document outside the repository, as `line: text`. */
function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { what, pattern } of OUTSIDE) {
      if (pattern.test(line)) found.push(`${index + 1}: ${what}: ${line.trim().slice(0, 120)}`);
    }
  });
  return found;
}

const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|jsx|astro|njk|html|css|json)$/;

/** Every file a contributor reads for the design: sources, scripts, benches, tests, and all Markdown. */
async function filesThatMayCite(): Promise<string[]> {
  const packages = (await readdir(join(ROOT, 'packages'))).map((name) => join(ROOT, 'packages', name));
  const examples = (await readdir(join(ROOT, 'examples'))).map((name) => join(ROOT, 'examples', name));
  const sourceDirs = [
    ...packages.flatMap((dir) => ['src', 'scripts', 'test', 'bin'].map((sub) => join(dir, sub))),
    join(ROOT, 'server', 'src'),
    join(ROOT, 'server', 'bin'),
    join(ROOT, 'server', 'scripts'),
    join(ROOT, 'server', 'test'),
    join(ROOT, 'scripts'),
    join(ROOT, 'bench'),
    join(ROOT, 'test'),
    ...examples.map((dir) => join(dir, 'src')),
  ];
  const files = new Set<string>();
  // Fixtures are data (HTML vectors, html5lib's suites), not text anyone reads for the design.
  const skipInSources = new Set([...SKIP_DIRS, 'fixtures']);
  for (const dir of sourceDirs) {
    for (const file of await listFiles(dir, (name) => SOURCE_FILE.test(name), skipInSources)) files.add(file);
  }
  for (const file of await listFiles(ROOT, (name) => name.endsWith('.md'))) files.add(file);
  return [...files].sort();
}

// ---------------------------------------------------------------------------------------------------------
// Error codes in the code and in the docs

/** The string members of a `type Name = | 'a' | 'b'` union in a TypeScript source. */
function unionMembers(source: string, name: string): string[] {
  // Comments dropped first: a `;` or a `'` in one would end the union early or make a member of prose.
  const code = source.replace(/\/\/[^\n]*/g, '');
  const body = new RegExp(`type ${name} =([^;]*);`).exec(code)?.[1] ?? '';
  return [...body.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
}

/** The `key: value` entries of `const NAME = { … }` in a TypeScript source (string or number values). */
function objectEntries(source: string, name: string): [string, string][] {
  const body = new RegExp(`const ${name} = \\{([^}]*)\\}`).exec(source)?.[1] ?? '';
  return [...body.matchAll(/^\s*(\w+):\s*'?([^',\n]+)'?,?\s*$/gm)].map(
    (match) => [match[1], match[2]] as [string, string],
  );
}

/** The table rows (`| … |` lines) of a Markdown text. */
function tableRows(markdown: string): string[] {
  return markdown.split('\n').filter((line) => line.trimStart().startsWith('|'));
}

/**
 * What a Markdown text misses of `expected`: each entry names backticked values that must stand together
 * in one table row (e.g. a code and its status). Returns the entries with no such row.
 */
function missingRows(markdown: string, expected: string[][]): string[] {
  const rows = tableRows(markdown);
  return expected
    .filter((values) => !rows.some((row) => values.every((value) => row.includes(value))))
    .map((values) => values.join(' + '));
}

// ---------------------------------------------------------------------------------------------------------

describe('docs/ (issue 12, acceptance 5)', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  const read = (path: string) => readFile(join(ROOT, path), 'utf8');

  it('has the pages of the design, and the root README links every one of them', () => {
    for (const page of ['architecture.md', 'errors.md', 'bunker-api.md', 'server-api.md', 'cache.md'])
      expect(docs).toContain(page);
    const linked = new Set(
      markdownLinks(readme)
        .map(({ target }) => target.split('#')[0] ?? '')
        .filter((target) => /^(?:\.\/)?docs\//.test(target))
        .map((target) => target.replace(/^\.\//, '').replace(/^docs\//, '')),
    );
    expect(docs.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('docs/README.md lists every page of docs/', async () => {
    const index = await read('docs/README.md');
    const listed = new Set(markdownLinks(index).map(({ target }) => target.split('#')[0]));
    expect(docs.filter((page) => page !== 'README.md' && !listed.has(page))).toEqual([]);
  });

  it('every relative link in docs/, the READMEs and SPEC.md reaches a file and a heading', async () => {
    const markdown = (await listFiles(ROOT, (name) => name.endsWith('.md'))).filter(
      (file) => repoPath(file).startsWith('docs/') || /(?:^|\/)(?:README|SPEC)\.md$/.test(repoPath(file)),
    );
    // The docs, the root README, every package's, the server's, the examples' and SPEC.md.
    expect(markdown.length).toBeGreaterThanOrEqual(docs.length + 9);
    const broken: string[] = [];
    for (const file of markdown) broken.push(...(await brokenLinks(file, await readFile(file, 'utf8'))));
    expect(broken).toEqual([]);
  });

  it('no source, script, bench, test or Markdown file points to a document outside the repository', async () => {
    const files = await filesThatMayCite();
    // The walk must see what it is meant to: this file, core's sources, the docs.
    for (const path of ['test/repo/docs.test.ts', 'packages/core/src/errors.ts', 'docs/errors.md'])
      expect(files.map(repoPath)).toContain(path);
    const found: string[] = [];
    for (const file of files) {
      for (const hit of outsideReferences(await readFile(file, 'utf8')))
        found.push(`${repoPath(file)}:${hit}`);
    }
    expect(found).toEqual([]);
  });

  it('docs/errors.md gives every German first line and every code of SiegelError', async () => {
    const errors = await read('docs/errors.md');
    const source = await read('packages/core/src/errors.ts');
    const german = objectEntries(source, 'GERMAN_MESSAGES');
    const codes = unionMembers(source, 'SiegelErrorCode');
    expect(german.length).toBe(4);
    expect(codes.length).toBeGreaterThanOrEqual(10);
    // Each German line in backticks, in one row with its code.
    expect(
      missingRows(
        errors,
        german.map(([code, line]) => [`\`${line}\``, `\`${code}\``]),
      ),
    ).toEqual([]);
    expect(
      missingRows(
        errors,
        codes.map((code) => [`\`${code}\``]),
      ),
    ).toEqual([]);
  });

  it('docs/bunker-api.md gives every bunker error code with its HTTP status', async () => {
    const api = await read('docs/bunker-api.md');
    const status = objectEntries(await read('packages/bunker/src/errors.ts'), 'ERROR_STATUS');
    expect(status.length).toBeGreaterThanOrEqual(12);
    expect(
      missingRows(
        api,
        status.map(([code, http]) => [`| ${http} |`, `\`${code}\``]),
      ),
    ).toEqual([]);
  });

  it('docs/server-api.md and docs/errors.md give every error code of the file server', async () => {
    const codes = unionMembers(await read('server/src/http/api-error.ts'), 'ApiErrorCode');
    expect(codes.length).toBeGreaterThanOrEqual(14);
    const expected = codes.map((code) => [`\`${code}\``]);
    expect(missingRows(await read('docs/server-api.md'), expected)).toEqual([]);
    expect(missingRows(await read('docs/errors.md'), expected)).toEqual([]);
  });
});

describe('the checkers find what they look for', () => {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('brokenLinks: a missing file, a missing heading; not links in code, with a scheme, or that resolve', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'siegel-docs-test-'));
    made.push(dir);
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, 'docs', 'a.md'), '# Title\n\n## The `x` part, again\n');
    const page = join(dir, 'README.md');
    const text = [
      '# Top',
      '[ok](docs/a.md) [ok](docs/a.md#the-x-part-again) [ok](#top) [ok](https://example.com/none)',
      '[gone](docs/b.md)',
      '[no heading](docs/a.md#other)',
      '`[in code](docs/c.md)`',
      '```',
      '[in a fence](docs/d.md)',
      '```',
    ].join('\n');
    await writeFile(page, text);
    const broken = await brokenLinks(page, text);
    expect(broken).toHaveLength(2);
    expect(broken[0]).toMatch(/:3 → docs\/b\.md: no such file$/);
    expect(broken[1]).toMatch(/:4 → docs\/a\.md#other: no heading `#other`$/);
  });

  it('outsideReferences: each pattern, and nothing in plain text', () => {
    const lines = [
      `see ${WORD}.md "Signers"`,
      `as ${WORD} "Layout" says`,
      `read ${['..', 'shared', 'x.md'].join('/')}`,
      `read ${['', 'work', 'shared', 'x.md'].join('/')}`,
      'the design lives in docs/, designed with care',
    ];
    expect(outsideReferences(lines.join('\n')).map((hit) => hit.split(':')[0])).toEqual(['1', '2', '3', '4']);
  });

  it('missingRows: a code missing from a table, or standing in a row without its status', () => {
    const table = '| status | code |\n| --- | --- |\n| 404 | `key_not_found` |\n';
    expect(missingRows(table, [['| 404 |', '`key_not_found`']])).toEqual([]);
    expect(missingRows(table, [['| 423 |', '`key_not_found`'], ['`key_locked`']])).toEqual([
      '| 423 | + `key_not_found`',
      '`key_locked`',
    ]);
    // Outside a table a code does not count.
    expect(missingRows('`key_locked` is mentioned in prose', [['`key_locked`']])).toEqual(['`key_locked`']);
  });
});

// Issue 25, acceptance 3: the server README's author table names every field a reader can give as
// `metadata.author_source` (the string literals of the readers' source types and the text syntaxes), and the
// limits table every bound the readers keep.
describe('the server README names every author source and every reader limit', () => {
  // The readers and their limits table live in @siegel/formats (issue 40); the server README documents them.
  const metadataDir = join(ROOT, 'packages/formats/src');

  /** The quoted members of `export type <name> = 'a' | 'b'` in `source`. */
  function unionMembers(source: string, name: string): string[] {
    const declaration = new RegExp(`export type ${name} =([^;]+);`).exec(source)?.[1] ?? '';
    return [...declaration.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
  }

  it('every author source', async () => {
    const readme = await readFile(join(ROOT, 'server/README.md'), 'utf8');
    const image = unionMembers(
      await readFile(join(metadataDir, 'image/metadata.ts'), 'utf8'),
      'ImageAuthorSource',
    );
    const pdf = unionMembers(await readFile(join(metadataDir, 'pdf/metadata.ts'), 'utf8'), 'PdfAuthorSource');
    const syntaxes = unionMembers(await readFile(join(metadataDir, 'text/blocks.ts'), 'utf8'), 'BlockSyntax');
    expect(image).toHaveLength(6);
    expect(pdf).toHaveLength(2);
    expect(syntaxes.length).toBeGreaterThanOrEqual(4);
    const missing = [...image, ...pdf].filter((source) => !readme.includes(`\`${source}\``));
    // Text sources are `<syntax>:<key>`: each syntax appears as one in the README (the title block as itself).
    for (const syntax of syntaxes) {
      if (!new RegExp(`\`${syntax}:[^\`]+\``).test(readme)) missing.push(`${syntax}:…`);
    }
    expect(missing).toEqual([]);
  });

  it('every limit', async () => {
    const readme = await readFile(join(ROOT, 'server/README.md'), 'utf8');
    const limits = await readFile(join(metadataDir, 'limits.ts'), 'utf8');
    const names = [...limits.matchAll(/^ {2}([a-z_]+): /gm)].map((match) => match[1] as string);
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((name) => !new RegExp(`^\\| \`${name}\` +\\|`, 'm').test(readme))).toEqual([]);
  });
});

// Issue 39, item 7: `relays` was missing from the integrations' option tables. Each integration README's
// table names every option the integrations share (core's schema), so a new one cannot be left out again.
describe('the integration READMEs name every shared option', () => {
  const shared = Object.keys(integrationOptionsSchema.shape);

  it.each(['packages/astro/README.md', 'packages/vite/README.md', 'packages/eleventy/README.md'])(
    '%s',
    async (path) => {
      const readme = await readFile(join(ROOT, path), 'utf8');
      expect(shared).toEqual(expect.arrayContaining(['relays', 'site', 'onError']));
      expect(shared.filter((name) => !new RegExp(`^\\| \`${name}\` +\\|`, 'm').test(readme))).toEqual([]);
    },
  );
});

// Issue 39, acceptance 3: every command block of the READMEs is run by a test (read from the README, or the
// same commands) or says why none can run it here. The table is test/repo/readme-commands.ts.
describe('every README command block is run by a test, or says why not', async () => {
  const readmes = (await listFiles(ROOT, (name) => name === 'README.md'))
    .map(repoPath)
    .filter(
      (path) =>
        path === 'README.md' || /^(?:packages|examples)\/[^/]+\/README\.md$|^server\/README\.md$/.test(path),
    )
    .sort();
  const blocks = (
    await Promise.all(
      readmes.map(async (file) =>
        fencedBlocks(await readFile(join(ROOT, file), 'utf8'))
          .filter((block) => block.lang === 'sh')
          .map((block) => ({ file, line: block.line, first: firstCommand(block) })),
      ),
    )
  ).flat();
  const entryOf = (block: { file: string; first: string }) =>
    README_COMMANDS.filter((entry) => entry.file === block.file && block.first.startsWith(entry.first));

  it('finds the blocks it is meant to', () => {
    expect(readmes).toEqual(
      expect.arrayContaining(['README.md', 'packages/bunker/README.md', 'server/README.md']),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(30);
  });

  it('each ```sh block has exactly one entry, and each entry a block', () => {
    const unmatched = blocks
      .filter((block) => entryOf(block).length !== 1)
      .map((block) => `${block.file}:${block.line} \`${block.first}\` (${entryOf(block).length} entries)`);
    expect(unmatched).toEqual([]);
    const stale = README_COMMANDS.filter(
      (entry) => !blocks.some((block) => block.file === entry.file && block.first.startsWith(entry.first)),
    ).map((entry) => `${entry.file}: \`${entry.first}\``);
    expect(stale).toEqual([]);
  });

  it('each named test exists and reads its block from the README, or holds what it mirrors', async () => {
    const problems: string[] = [];
    for (const entry of README_COMMANDS as ReadmeCommandBlock[]) {
      if ('notRunnable' in entry) {
        if (entry.notRunnable.length < 20) problems.push(`${entry.file}: \`${entry.first}\`: say why`);
        continue;
      }
      const test = 'extractedBy' in entry ? entry.extractedBy : entry.mirroredBy;
      const source = await readFile(join(ROOT, test), 'utf8').catch(() => undefined);
      if (source === undefined) {
        problems.push(`${entry.file}: ${test} does not exist`);
      } else if ('extractedBy' in entry && !source.includes(`readmeBlock('${entry.file}', 'sh', '`)) {
        problems.push(
          `${entry.file}: ${test} does not read the block with readmeBlock('${entry.file}', 'sh', …)`,
        );
      } else if ('marker' in entry && !source.includes(entry.marker)) {
        problems.push(`${entry.file}: ${test} holds no \`${entry.marker}\``);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('fencedBlocks and firstCommand', () => {
  it('reads fenced blocks, indented ones too, and skips comments for the first command', () => {
    const text = [
      '# T',
      '```sh',
      '# a comment',
      'npm ci',
      '```',
      '1. item',
      '   ```sh',
      '   cp a b',
      '   ```',
    ].join('\n');
    const blocks = fencedBlocks(text);
    expect(blocks).toEqual([
      { lang: 'sh', line: 2, text: '# a comment\nnpm ci' },
      { lang: 'sh', line: 7, text: 'cp a b' },
    ]);
    expect(blocks.map(firstCommand)).toEqual(['npm ci', 'cp a b']);
  });
});

// Issue 39, item 7: `npm publish -w …` warned `"bin[siegel]" script name bin/siegel.js was invalid and removed`
// for core, bunker and server: npm normalises a bin path (no `./`, `/` separators) and warns when that
// changes it. Each published package's bin paths are already what npm would make of them.
describe('the bin paths of the published packages are as npm publishes them', () => {
  it.each(['packages/core', 'packages/bunker', 'server'])('%s', async (folder) => {
    const manifest = JSON.parse(await readFile(join(ROOT, folder, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const paths = Object.values(manifest.bin);
    expect(paths.length).toBeGreaterThan(0);
    // npm's rule (@npmcli/package-json): the path joined onto `/`, with the leading `/` cut.
    expect(paths.filter((path) => join('/', path.replace(/\\/g, '/')).slice(1) !== path)).toEqual([]);
  });
});
