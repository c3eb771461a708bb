// The shape every package's `src/` keeps (docs/architecture.md): no import loop between files or between
// rooms, no source file over 400 lines, and — for a package whose room order docs/architecture.md states in a
// "… bottom to top" sentence — one folder (room) per concept, a file in each room that opens with a paragraph
// on what the room owns (`// signing/ owns …`), and imports only downward in that order. The order is read
// from the doc, so the doc and the check cannot disagree; the packages are read from the root package.json's
// workspaces (every `@siegel/*` one with a `src/`), so a package added later is checked without a list here.
// It reads files only: no process, no socket.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';

/** Longest source file allowed: a file that grows past it holds two concepts. */
export const MAX_LINES = 400;

/** What the check found wrong in one package, each message naming the files. */
export interface ArchitectureReport {
  /** The package's folder, relative to the repository (`packages/core`, `server`). */
  readonly dir: string;
  /** Its rooms bottom to top, from docs/architecture.md; `undefined` for a package without rooms. */
  readonly order: readonly string[] | undefined;
  readonly problems: readonly string[];
}

const SOURCE = /\.(?:ts|tsx|mts)$/;

/** The workspaces of the repository at `root` that are packages of ours with a `src/`, e.g. `packages/core`. */
export async function listPackages(root: string): Promise<{ dir: string; name: string }[]> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    workspaces?: string[];
  };
  const found: { dir: string; name: string }[] = [];
  for (const pattern of manifest.workspaces ?? []) {
    const dirs = pattern.endsWith('/*')
      ? (await readdir(join(root, pattern.slice(0, -2)), { withFileTypes: true }))
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern];
    for (const dir of dirs) {
      const file = join(root, dir, 'package.json');
      if (!existsSync(file) || !existsSync(join(root, dir, 'src'))) continue;
      const { name } = JSON.parse(await readFile(file, 'utf8')) as { name?: string };
      if (name?.startsWith('@siegel/')) found.push({ dir, name });
    }
  }
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

/**
 * The room order per package named in `doc` (docs/architecture.md): under a `##` heading that names the package
 * (`` `@siegel/core` ``), the backticked names between "—" and "bottom to top" (`` `errors.ts`, `text/`, … ``).
 * Folders keep their slash off: `['errors.ts', 'text', …]`.
 */
export function readRoomOrders(doc: string): Map<string, string[]> {
  const orders = new Map<string, string[]>();
  for (const section of doc.split(/^## /m).slice(1)) {
    const heading = section.slice(0, section.indexOf('\n'));
    const name = /`(@siegel\/[a-z0-9-]+)`/.exec(heading)?.[1];
    const sentence = /—([^—]*?),?\s*bottom to\s+top/.exec(section)?.[1];
    if (name === undefined || sentence === undefined) continue;
    orders.set(
      name,
      [...sentence.matchAll(/`([^`]+)`/g)].map((match) => (match[1] as string).replace(/\/$/, '')),
    );
  }
  return orders;
}

/** The source files under `src`, relative to it (`/`-separated), sorted. */
export async function listSources(src: string): Promise<string[]> {
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => relative(src, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** The files of `src/` a module imports (relative specifiers, types and re-exports included: a type loop is a loop too). */
export function importsOf(file: string, text: string, files: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const pattern = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const match of text.matchAll(pattern)) {
    const base = normalize(join(dirname(file), match[1] as string))
      .split('\\')
      .join('/')
      .replace(/\.(?:js|jsx|mjs)$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}/index.ts`, base].find((candidate) =>
      files.has(candidate),
    );
    if (target !== undefined && target !== file && !found.includes(target)) found.push(target);
  }
  return found;
}

/** Every cycle in a graph, each as the list of nodes around it (the first node again at the end). */
export function findLoops(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const loops: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') loops.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return loops;
}

/** The room of a file: its top folder under `src/`, or the file itself for one at the top (`errors.ts`, `index.ts`). */
export const roomOf = (file: string): string => file.split('/')[0] as string;

/** Whether a room's file opens with the paragraph on what the room owns: `// room/ owns …`, two lines or more. */
function hasHeader(room: string, text: string): boolean {
  const header = /^(?:#!.*\n)?((?:\/\/.*\n)+)/.exec(text)?.[1] ?? '';
  return header.startsWith(`// ${room}/ owns `) && header.split('\n').length > 2;
}

/**
 * Checks one package's `src/` (at `src`, files named relative to `label`) against the rules above; `order`
 * is its room order bottom to top, or `undefined` for a package without rooms (loops and lengths only).
 */
export async function checkSources(
  src: string,
  order: readonly string[] | undefined,
  label: string,
): Promise<string[]> {
  const files = await listSources(src);
  const texts = new Map(
    await Promise.all(files.map(async (file) => [file, await readFile(join(src, file), 'utf8')] as const)),
  );
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, texts.get(file) ?? '', known)]));
  const name = (file: string): string => `${label}/${file}`;
  const problems: string[] = [];

  for (const loop of findLoops(graph)) problems.push(`import loop: ${loop.map(name).join(' → ')}`);

  const roomGraph = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    const edges = roomGraph.get(from) ?? [];
    for (const target of targets) {
      const to = roomOf(target);
      if (to !== from && !edges.includes(to)) edges.push(to);
    }
    roomGraph.set(from, edges);
  }
  for (const loop of findLoops(roomGraph)) {
    const witnesses = loop.slice(0, -1).map((room, index) => {
      const next = loop[index + 1] as string;
      const file = files.find(
        (f) => roomOf(f) === room && (graph.get(f) ?? []).some((t) => roomOf(t) === next),
      );
      const target = (graph.get(file as string) ?? []).find((t) => roomOf(t) === next) as string;
      return `${name(file as string)} imports ${name(target)}`;
    });
    problems.push(`import loop between rooms ${loop.join(' → ')}: ${witnesses.join('; ')}`);
  }

  for (const file of files) {
    const lines = (texts.get(file) ?? '').replace(/\n$/, '').split('\n').length;
    if (lines > MAX_LINES) {
      problems.push(
        `${name(file)} has ${lines} lines, over ${MAX_LINES}: it holds two concepts, split it by concept`,
      );
    }
  }

  if (order === undefined) return problems;

  const rank = new Map(order.map((room, index) => [room, index]));
  const rooms = new Set(files.map(roomOf));
  for (const room of rooms) {
    if (!rank.has(room)) {
      problems.push(
        `${name(room)} is not in the room order docs/architecture.md gives (${order.join(', ')})`,
      );
    }
  }
  for (const room of rooms) {
    if (!rank.has(room) || !files.some((file) => file.startsWith(`${room}/`))) continue;
    const inRoom = files.filter(
      (file) => file.startsWith(`${room}/`) && !file.slice(room.length + 1).includes('/'),
    );
    if (!inRoom.some((file) => hasHeader(room, texts.get(file) ?? ''))) {
      problems.push(
        `${name(`${room}/`)} has no header: none of its files (${inRoom.map(name).join(', ')}) opens with "// ${room}/ owns …", a paragraph`,
      );
    }
  }
  for (const [file, targets] of graph) {
    const from = rank.get(roomOf(file));
    for (const target of targets) {
      const to = rank.get(roomOf(target));
      if (from !== undefined && to !== undefined && to > from) {
        problems.push(
          `${name(file)} imports ${name(target)} upward: ${roomOf(target)} stands above ${roomOf(file)} in the room order`,
        );
      }
    }
  }
  return problems;
}

/** Checks every package of the repository at `root` with the room orders of its docs/architecture.md. */
export async function checkRepository(root: string): Promise<ArchitectureReport[]> {
  const orders = readRoomOrders(await readFile(join(root, 'docs/architecture.md'), 'utf8'));
  const reports: ArchitectureReport[] = [];
  for (const { dir, name } of await listPackages(root)) {
    const order = orders.get(name);
    reports.push({ dir, order, problems: await checkSources(join(root, dir, 'src'), order, `${dir}/src`) });
  }
  return reports;
}

/** Files under 20 lines that only pass names on or hold one constant (a room's file has a concept of its own). */
export async function findTinyFiles(src: string, label: string): Promise<string[]> {
  const tiny: string[] = [];
  for (const file of await listSources(src)) {
    if (!file.includes('/')) continue;
    const text = await readFile(join(src, file), 'utf8');
    if (text.split('\n').length >= 20) continue;
    const code = text.split('\n').filter((line) => line.trim() !== '' && !/^\s*(\/\/|\/\*|\*)/.test(line));
    const onlyReExports = code.every((line) => /^(export \{|export \*|export type \{|\s|\})/.test(line));
    const oneConstant = code.filter((line) => /^export const /.test(line)).length === 1 && code.length <= 3;
    if (onlyReExports || oneConstant) tiny.push(`${label}/${file}`);
  }
  return tiny;
}
