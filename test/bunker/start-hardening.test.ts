// Issue 22, acceptance 5: at start, temp files a killed key write left behind are removed (L6); on a Node
// older than the package's engines, `siegel-bunker` says which Node it needs in one line (no stack trace).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startBunker } from '../support/bunker-process.js';

const run = promisify(execFile);
const _LAUNCHER = fileURLToPath(new URL('../../packages/bunker/bin/siegel-bunker.js', import.meta.url));
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-start-'));
  dirs.push(dir);
  return dir;
}

/** Run `node launcher start`; resolves with its exit code and output. */
async function _launch(
  node: string,
  launcher: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(node, [launcher, 'start'], { env: {} });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('siegel-bunker start (issue 22)', () => {
  it('removes key-creation temp files left by a killed write (L6)', async () => {
    const dataDir = await tempDir();
    await mkdir(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
    const stale = ['keys/.default.json.0123456789ab.tmp', '.nip46.json.ba9876543210.tmp'];
    for (const name of stale) await writeFile(join(dataDir, name), 'ncryptsec1…', { mode: 0o600 });
    // Not a temp file of ours: kept.
    await writeFile(join(dataDir, 'keys', '.notes.tmp'), 'mine');
    const bunker = await startBunker({ dataDir });
    try {
      expect(bunker.output()).toContain('removed 2 temp file(s) left by an interrupted write');
      expect((await readdir(join(dataDir, 'keys'))).sort()).toEqual(['.notes.tmp', 'default.json']);
      expect(await readdir(dataDir)).not.toContain('.nip46.json.ba9876543210.tmp');
    } finally {
      await bunker.stop();
    }
  });
});
