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

/** What a CLI run on a terminal left behind: stdout and stderr as one stream, as the terminal got them. */
export interface TerminalResult {
  code: number | null;
  output: string;
}

/**
 * Run the built `siegel` CLI as {@link runCli} does, but with a terminal for its stdin, stdout and stderr
 * (a pseudo-terminal from util-linux `script`), so what it shows only on a terminal (progress) shows.
 */
export function runCliOnTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<TerminalResult> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, SIEGEL_CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    // -q: no start and end lines; -e: the command's exit code; -c: the command; /dev/null: no typescript.
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
