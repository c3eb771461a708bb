import { execFile } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Copy what a clean clone of `repoRoot` would hold into `dest`: every tracked file as it is now in the
 * working tree, plus new files git does not ignore — so uncommitted work is tested too, while build
 * output, `node_modules` and `.env` files (all ignored) stay behind.
 */
export async function copyWorkingTree(repoRoot: string, dest: string): Promise<number> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  });
  const deleted = new Set(
    (await run('git', ['ls-files', '-z', '--deleted'], { cwd: repoRoot })).stdout.split('\0').filter(Boolean),
  );
  const files = stdout.split('\0').filter((path) => path && !deleted.has(path));
  for (const path of files) {
    await mkdir(dirname(join(dest, path)), { recursive: true });
    await cp(join(repoRoot, path), join(dest, path), { preserveTimestamps: true });
  }
  return files.length;
}
