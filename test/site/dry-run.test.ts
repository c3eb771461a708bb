import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { runSiegel, snapshotTree } from './support.js';

const SITE = 'https://example.com';
const PAGES = 12;

let bunker: RunningBunker;
let root: string;

async function writeEnv(dir: string, extra: Record<string, string>): Promise<void> {
  const values = { BUNKER_URL: bunker.url, BUNKER_API_TOKEN: bunker.apiToken, SITE_URL: SITE, ...extra };
  await writeFile(
    join(dir, '.env'),
    Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
}

beforeAll(async () => {
  bunker = await startBunker({ keys: [{ name: 'default' }, { name: 'locked', locked: true }] });
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-dry-'));
  await generateSite(join(root, 'build'), PAGES, 3);
});

afterAll(async () => {
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel sign --dry-run checks the key against a real bunker', () => {
  it('an unlocked key: exit 0, reports what would be signed, writes nothing', async () => {
    const project = join(root, 'ok');
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    await writeEnv(project, {});
    const before = await snapshotTree(project);
    const run = await runSiegel(['sign', '--dry-run'], { cwd: project });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Siegel \\(dry run, nothing written\\): ${PAGES} would be signed, 0 unchanged`),
    );
    expect(await snapshotTree(project)).toEqual(before);
  });

  for (const { name, env, line } of [
    { name: 'a locked key', env: { BUNKER_KEY_NAME: 'locked' }, line: 'Key ist gesperrt' },
    { name: 'an unknown key', env: { BUNKER_KEY_NAME: 'gibt-es-nicht' }, line: 'Key nicht gefunden' },
    {
      name: 'a rejected token',
      env: { BUNKER_API_TOKEN: 'not-the-token' },
      line: 'BUNKER_API_TOKEN ungültig',
    },
  ]) {
    it(`${name}: the German line, exit 1, nothing written`, async () => {
      const project = join(root, name.replaceAll(' ', '-'));
      await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
      await writeEnv(project, env);
      const before = await snapshotTree(project);
      const run = await runSiegel(['sign', '--dry-run'], { cwd: project });
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n')[0]).toBe(line);
      expect(run.stdout).toBe('');
      expect(await snapshotTree(project)).toEqual(before); // no page, no verify page, no cache
    });
  }
});
