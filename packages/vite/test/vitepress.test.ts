import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserConfig } from 'vitepress';
import { afterEach, describe, expect, it } from 'vitest';
import * as api from '../src/vitepress.js';
import { findProjectRoot, siegelBuildEnd } from '../src/vitepress.js';

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

describe('@siegel/vite/vitepress', () => {
  it('exports siegelBuildEnd and its parts, and siegelBuildEnd fits VitePress’s own buildEnd type', () => {
    expect(Object.keys(api).sort()).toEqual(
      ['chainVitePressBuildEnd', 'findProjectRoot', 'siegelBuildEnd', 'signVitePressSite'].sort(),
    );
    // A type check as much as a test: `tsc -p tsconfig.tests.json` fails if VitePress's type changes.
    const buildEnd: UserConfig['buildEnd'] = siegelBuildEnd({ site: 'https://example.com' });
    expect(typeof buildEnd).toBe('function');
  });

  it('rejects typos at once, naming them in backticks', () => {
    expect(() => siegelBuildEnd({ outDir: 'x' } as never)).toThrow(/@siegel\/vite: unknown option `outDir`/);
  });

  it('finds the project root: the nearest folder at or above the VitePress root with a package.json', async () => {
    const project = await mkdtemp(join(tmpdir(), 'siegel-vitepress-root-'));
    dirs.push(project);
    await mkdir(join(project, 'site/docs/.vitepress'), { recursive: true });
    await writeFile(join(project, 'package.json'), '{}');
    expect(findProjectRoot(join(project, 'site/docs'))).toBe(project);
    await writeFile(join(project, 'site/package.json'), '{}');
    expect(findProjectRoot(join(project, 'site/docs'))).toBe(join(project, 'site'));
    await writeFile(join(project, 'site/docs/package.json'), '{}');
    expect(findProjectRoot(join(project, 'site/docs'))).toBe(join(project, 'site/docs'));
  });
});
