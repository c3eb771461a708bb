// One architecture test for every package's src/ (docs/architecture.md, issue 40): no import loop between
// files or rooms, no file over 400 lines, and for a package whose room order the doc states, a header per
// room and imports only downward in that order. The logic is in test/support/architecture.ts; its own tests
// plant each fault in a temporary tree and see it named.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkRepository,
  checkSources,
  findTinyFiles,
  listPackages,
  readRoomOrders,
} from '../support/architecture.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the architecture of every package', async () => {
  const reports = await checkRepository(ROOT);

  it('checks every @siegel workspace with a src/, the server and the formats package included', () => {
    const dirs = reports.map((report) => report.dir);
    for (const dir of [
      'packages/core',
      'packages/bunker',
      'packages/astro',
      'packages/vite',
      'packages/eleventy',
    ])
      expect(dirs).toContain(dir);
    for (const dir of ['packages/formats', 'packages/client', 'server']) expect(dirs).toContain(dir);
  });

  it('reads the room order of core and the server from docs/architecture.md', () => {
    const order = (dir: string) => reports.find((report) => report.dir === dir)?.order;
    expect(order('packages/core')?.slice(0, 3)).toEqual(['errors.ts', 'text', 'fs']);
    expect(order('packages/core')?.at(-1)).toBe('index.ts');
    expect(order('server')?.length).toBeGreaterThan(5);
  });

  for (const report of reports) {
    it(`${report.dir}/src: no loop, no file over 400 lines${report.order ? ', rooms with headers, imports downward' : ''}`, () => {
      expect(report.problems).toEqual([]);
    });
  }

  it("core's rooms have no file under 20 lines that only re-exports or holds one constant", async () => {
    expect(await findTinyFiles(join(ROOT, 'packages/core/src'), 'packages/core/src')).toEqual([]);
  });
});

describe('the architecture check fails on a planted fault, naming the files', async () => {
  const root = await mkdtemp(join(tmpdir(), 'siegel-architecture-'));
  afterAll(() => rm(root, { recursive: true, force: true }));
  const ORDER = ['errors.ts', 'low', 'high', 'index.ts'];
  const HEADER = (room: string) =>
    `// ${room}/ owns what the fixture says.\n// A second line makes it a paragraph.\n`;
  let count = 0;

  /** A fixture src/ with a healthy shape, then `files` written over it. */
  async function plant(files: Record<string, string>): Promise<string> {
    const src = join(root, `tree-${count++}`, 'src');
    const base: Record<string, string> = {
      'errors.ts': 'export class FixtureError extends Error {}\n',
      'low/low.ts': `${HEADER('low')}import { FixtureError } from '../errors.js';\nexport const low = FixtureError;\n`,
      'high/high.ts': `${HEADER('high')}import { low } from '../low/low.js';\nexport const high = low;\n`,
      'index.ts': "export { high } from './high/high.js';\n",
    };
    for (const [file, text] of Object.entries({ ...base, ...files })) {
      await mkdir(dirname(join(src, file)), { recursive: true });
      await writeFile(join(src, file), text);
    }
    return src;
  }

  it('passes the healthy fixture (the faults below are what fails it)', async () => {
    expect(await checkSources(await plant({}), ORDER, 'fixture/src')).toEqual([]);
  });

  it('fails on a file cycle', async () => {
    const src = await plant({
      'low/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'low/b.ts': "import type { a } from './a.js';\nexport const b: typeof a | undefined = undefined;\n",
    });
    const problems = await checkSources(src, undefined, 'fixture/src');
    expect(problems).toEqual([
      'import loop: fixture/src/low/a.ts → fixture/src/low/b.ts → fixture/src/low/a.ts',
    ]);
  });

  it('fails on an upward import', async () => {
    const src = await plant({
      'low/reach.ts': "import { high } from '../high/high.js';\nexport const reach = high;\n",
    });
    const problems = await checkSources(src, ORDER, 'fixture/src');
    expect(problems).toContain(
      'fixture/src/low/reach.ts imports fixture/src/high/high.ts upward: high stands above low in the room order',
    );
    expect(problems.filter((problem) => problem.startsWith('import loop between rooms'))).toEqual([
      'import loop between rooms high → low → high: fixture/src/high/high.ts imports fixture/src/low/low.ts; fixture/src/low/reach.ts imports fixture/src/high/high.ts',
    ]);
  });

  it('fails on a 401-line file and passes a 400-line one', async () => {
    const lines = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`;
    const src = await plant({ 'low/long.ts': `${HEADER('low')}${lines(399)}`, 'low/just.ts': lines(400) });
    expect(await checkSources(src, undefined, 'fixture/src')).toEqual([
      'fixture/src/low/long.ts has 401 lines, over 400: it holds two concepts, split it by concept',
    ]);
  });

  it('fails on a room without a header, and on a room the order does not name', async () => {
    const src = await plant({
      'high/high.ts': "import { low } from '../low/low.js';\nexport const high = low;\n",
      'stray/stray.ts': `${HEADER('stray')}export const stray = 1;\n`,
    });
    const problems = await checkSources(src, ORDER, 'fixture/src');
    expect(problems).toContain(
      'fixture/src/high/ has no header: none of its files (fixture/src/high/high.ts) opens with "// high/ owns …", a paragraph',
    );
    expect(problems).toContain(
      'fixture/src/stray is not in the room order docs/architecture.md gives (errors.ts, low, high, index.ts)',
    );
  });

  it('reads a room order per package from the doc, and finds a package added to the workspaces', async () => {
    const repo = join(root, 'repo');
    const doc = [
      '# Architecture',
      '## The rooms of `@siegel/one`',
      'Layered — `errors.ts`, `low/`, `high/`, `index.ts`, bottom to',
      'top.',
      '## The bunker (`@siegel/two`)',
      'No order here.',
    ].join('\n');
    expect(readRoomOrders(doc)).toEqual(new Map([['@siegel/one', ORDER]]));
    for (const [dir, name] of [
      ['packages/one', '@siegel/one'],
      ['packages/extension', '@siegel/extension'],
      ['examples/site', 'site-example'],
    ] as const) {
      await mkdir(join(repo, dir, 'src'), { recursive: true });
      await writeFile(join(repo, dir, 'package.json'), JSON.stringify({ name }));
    }
    await writeFile(join(repo, 'package.json'), JSON.stringify({ workspaces: ['packages/*', 'examples/*'] }));
    expect(await listPackages(repo)).toEqual([
      { dir: 'packages/extension', name: '@siegel/extension' },
      { dir: 'packages/one', name: '@siegel/one' },
    ]);
    await mkdir(join(repo, 'docs'));
    await writeFile(join(repo, 'docs/architecture.md'), doc);
    await writeFile(join(repo, 'packages/one/src/index.ts'), '');
    const reports = await checkRepository(repo);
    expect(reports.map((report) => [report.dir, report.order])).toEqual([
      ['packages/extension', undefined],
      ['packages/one', ORDER],
    ]);
    expect(await readFile(join(repo, 'docs/architecture.md'), 'utf8')).toBe(doc);
  });
});
