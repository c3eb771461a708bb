// The fenced code blocks of the repository's READMEs, for the tests that run what a README says (extracted,
// so that the README and the test cannot drift apart) and for the check that every command block of a README
// is run by a test or says why it cannot be (test/repo/readme-commands.ts, test/repo/docs.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One fenced block of a Markdown text: its language tag (`sh`, `js`, … or ``), 1-based line, and text. */
export interface FencedBlock {
  lang: string;
  line: number;
  text: string;
}

/**
 * Every fenced (```) block of a Markdown text, indented ones (in a list item) with the indent removed.
 *
 * @example
 * fencedBlocks('a\n```sh\nnpm ci\n```\n') // [{ lang: 'sh', line: 2, text: 'npm ci' }]
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { lang: string; line: number; indent: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    const fence = /^(\s*)```(\S*)\s*$/.exec(line);
    if (open) {
      if (fence) {
        blocks.push({ lang: open.lang, line: open.line, text: open.lines.join('\n') });
        open = undefined;
      } else {
        open.lines.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
      }
    } else if (fence) {
      open = { lang: fence[2] ?? '', line: index + 1, indent: fence[1]?.length ?? 0, lines: [] };
    }
  });
  return blocks;
}

/** The first line of a block that is not blank or a comment: what names it in test/repo/readme-commands.ts. */
export function firstCommand(block: FencedBlock): string {
  return (
    block.text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('#') && !line.startsWith('//')) ?? ''
  );
}

/**
 * The one block of `file` (relative to the repository root) in language `lang` whose first command starts
 * with `startsWith`: what a test runs, read from the README itself.
 *
 * @example
 * const snippet = readmeBlock('server/README.md', 'js', "import { readFile } from 'node:fs/promises';");
 * @throws when no block or more than one matches (the README changed: update the test with it).
 */
export function readmeBlock(file: string, lang: string, startsWith: string): string {
  const blocks = fencedBlocks(readFileSync(join(ROOT, file), 'utf8')).filter(
    (block) => block.lang === lang && firstCommand(block).startsWith(startsWith),
  );
  if (blocks.length !== 1)
    throw new Error(`${file}: ${blocks.length} \`${lang}\` blocks start with \`${startsWith}\`, not one`);
  return (blocks[0] as FencedBlock).text;
}
