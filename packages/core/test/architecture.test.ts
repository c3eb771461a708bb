import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The shape of src/ that the README's "How a run works" describes: one folder per concept, each with a
// main file whose header says what the folder owns, no import loop, no tiny files that only pass names on.
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The main file of each folder: the one whose first comment says what the folder owns. */
const ROOMS: Record<string, string> = {
  auth: 'auth/tokens.ts',
  cache: 'cache/sign-cache.ts',
  cli: 'cli/cli.ts',
  fs: 'fs/atomic-write.ts',
  integration: 'integration/integration.ts',
  manifest: 'manifest/site-manifest.ts',
  net: 'net/site-client.ts',
  nostr: 'nostr/crypto.ts',
  options: 'options/options.ts',
  page: 'page/analyze.ts',
  pipeline: 'pipeline/sign-site.ts',
  signer: 'signer/create-signer.ts',
  text: 'text/terminal-text.ts',
  verify: 'verify/verify-site.ts',
};

/** Longest source file allowed. */
const MAX_LINES = 400;

/** The room (top folder under src/) of a file; errors.ts (under everything) and index.ts (over everything) are their own. */
const roomOf = (file: string): string => file.split('/')[0] as string;

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(SRC, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** The files a module imports from src/ (relative specifiers, types included: a type loop is a loop too). */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)) {
    const specifier = (match[1] ?? match[2]) as string;
    found.push(
      normalize(join(dirname(file), specifier))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts'),
    );
  }
  return found;
}

/** Every cycle in the import graph, each as the list of files around it. */
function findLoops(graph: Map<string, string[]>): string[][] {
  const loops: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') loops.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return loops;
}

describe('the rooms of packages/core/src', async () => {
  const files = await listFiles(SRC);
  const texts = new Map(
    await Promise.all(files.map(async (file) => [file, await readFile(join(SRC, file), 'utf8')] as const)),
  );

  it('has no import loop', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file, texts.get(file) ?? '')]));
    for (const targets of graph.values()) for (const target of targets) expect(files).toContain(target);
    expect(findLoops(graph)).toEqual([]);
  });

  it('has no import loop between folders either (each room only uses the rooms below it)', () => {
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const from = roomOf(file);
      const targets = graph.get(from) ?? [];
      for (const target of importsOf(file, texts.get(file) ?? '')) {
        const to = roomOf(target);
        if (to !== from && !targets.includes(to)) targets.push(to);
      }
      graph.set(from, targets);
    }
    expect(findLoops(graph)).toEqual([]);
  });

  it('has no source file over 400 lines (a file that grows past it holds two concepts: split it by concept)', () => {
    const long = files
      .map((file) => ({ file, lines: (texts.get(file) ?? '').replace(/\n$/, '').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('finds a loop when there is one (the check above can fail)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
    ]);
    expect(findLoops(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('keeps every file in a folder named for its concept, each folder with a main file that says what it owns', () => {
    const folders = new Set(files.filter((file) => file.includes('/')).map((file) => file.split('/')[0]));
    expect([...folders].sort()).toEqual(Object.keys(ROOMS).sort());
    expect(files.filter((file) => !file.includes('/'))).toEqual(['errors.ts', 'index.ts']);
    for (const [folder, main] of Object.entries(ROOMS)) {
      const text = texts.get(main) ?? '';
      const header = /^(?:#!.*\n)?((?:\/\/.*\n)+)/.exec(text)?.[1] ?? '';
      expect(header, main).toMatch(new RegExp(`^// ${folder}/ owns `));
      expect(header.split('\n').length, `${main}: a paragraph`).toBeGreaterThan(2);
    }
  });

  it('has no file under 20 lines that only re-exports or holds one constant', () => {
    const tiny = files.filter((file) => {
      const code = (texts.get(file) ?? '')
        .split('\n')
        .filter((line) => line.trim() !== '' && !/^\s*(\/\/|\/\*|\*)/.test(line));
      if ((texts.get(file) ?? '').split('\n').length >= 20) return false;
      const onlyReExports = code.every((line) => /^(export \{|export \*|export type \{|\s|\})/.test(line));
      const oneConstant = code.filter((line) => /^export const /.test(line)).length === 1 && code.length <= 3;
      return onlyReExports || oneConstant;
    });
    expect(tiny).toEqual([]);
  });
});
