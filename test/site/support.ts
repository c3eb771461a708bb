import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `siegel` CLI (run with `process.execPath`, the pinned Node). */
export const SIEGEL_CLI = fileURLToPath(new URL('../../packages/core/dist/cli.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `siegel …` in `cwd` with exactly `env` (plus PATH/HOME): nothing leaks in from the test's environment. */
export function runSiegel(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIEGEL_CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
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
