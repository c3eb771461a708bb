import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `siegel` CLI (run with `process.execPath`, the pinned Node). */
export const SIEGEL_CLI = fileURLToPath(new URL('../../bin/siegel.js', import.meta.url));

/** What a finished CLI run left behind. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the built `siegel` CLI with `args` in `cwd`, with exactly `env` plus PATH: nothing leaks in from
 * the test's environment. Used by the core tests and by the cross-package site tests.
 */
export function runCli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIEGEL_CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
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
