import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { type CliResult, runCli } from '../../packages/core/test/support/run-cli.js';

export { type CliResult, SIEGEL_CLI } from '../../packages/core/test/support/run-cli.js';

/** Run `siegel …` in `cwd` with exactly `env` (plus PATH/HOME): nothing leaks in from the test's environment. */
export function runSiegel(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  return runCli(args, options.cwd, { HOME: process.env.HOME ?? '', ...options.env });
}

/** Every file under `dir` (relative path → bytes), to compare a tree before and after. */
export async function snapshotTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(relative(dir, path), await readFile(path));
  }
  return out;
}
