// Issue 10: "`siegel sign` widens a page's mode (0600 → 0644)" — the atomic write (temp file + rename) made
// a new file with the default mode. Each page must keep its own; the verify files are new files and get the
// default every file a build writes gets (0666 / 0777 less the umask, which the CLI inherits from here).
import { chmod, cp, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { runSiegel } from './support.js';

let bunker: RunningBunker;
let root: string;
let paths: string[];

const modeOf = async (path: string): Promise<string> => ((await stat(path)).mode & 0o7777).toString(8);

beforeAll(async () => {
  bunker = await useBunker();
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-modes-'));
  paths = await generateSite(join(root, 'dist'), 5, 5);
  await writeFile(
    join(root, '.env'),
    `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=${bunker.apiToken}\nBUNKER_KEY_NAME=${bunker.keyName}\nSITE_URL=https://example.com\n`,
  );
});

afterAll(async () => {
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel sign keeps file modes (issue 10)', () => {
  it('a 0600 page stays 0600, 0644 stays 0644 (and 0640, 0755, 0400); verify files get the default', async () => {
    const modes = [0o600, 0o644, 0o640, 0o755, 0o400];
    const dist = join(root, 'dist');
    for (const [index, path] of paths.entries()) await chmod(join(dist, path), modes[index] as number);
    // What a new file and folder get in this process (the CLI inherits the umask).
    await writeFile(join(root, 'probe-file'), '');
    await mkdir(join(root, 'probe-dir'));
    const newFile = await modeOf(join(root, 'probe-file'));
    const newDir = await modeOf(join(root, 'probe-dir'));

    const run = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Siegel: 5 signed');
    for (const [index, path] of paths.entries())
      expect(`${path} ${await modeOf(join(dist, path))}`).toBe(
        `${path} ${(modes[index] as number).toString(8)}`,
      );

    const verify = join(dist, 'verify');
    const entries = await readdir(verify, { recursive: true, withFileTypes: true });
    // Five page events and the site manifest (verify/manifest.json), every one with the default mode.
    expect(entries.filter((entry) => /^[0-9a-f]{64}\.json$/.test(entry.name))).toHaveLength(5);
    expect(entries.map((entry) => entry.name)).toContain('manifest.json');
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      expect(`${entry.name} ${await modeOf(path)}`).toBe(
        `${entry.name} ${entry.isDirectory() ? newDir : newFile}`,
      );
    }
    expect(await modeOf(verify)).toBe(newDir);
    expect(await modeOf(join(root, '.sign-cache.json'))).toBe(newFile);

    // A second run over a fresh unsigned copy (blocks from the cache) replaces the pages again: still their
    // modes; a cache made private stays private.
    await chmod(join(root, '.sign-cache.json'), 0o600);
    const copy = join(root, 'copy');
    await cp(join(root, 'dist'), copy, { recursive: true });
    await rm(join(copy, 'verify'), { recursive: true });
    for (const [index, path] of paths.entries()) {
      await rm(join(copy, path)); // (a 0400 file cannot be written over, but for root)
      await writeFile(join(copy, path), `<!doctype html><title>x</title><main>changed ${index}</main>`);
      await chmod(join(copy, path), modes[index] as number);
    }
    const again = await runSiegel(['sign', 'copy'], { cwd: root });
    expect(again.code).toBe(0);
    for (const [index, path] of paths.entries())
      expect(`${path} ${await modeOf(join(copy, path))}`).toBe(
        `${path} ${(modes[index] as number).toString(8)}`,
      );
    expect(await modeOf(join(root, '.sign-cache.json'))).toBe('600');
  });
});
