import { spawn } from 'node:child_process';
import { stopProcessGroup } from '../../support/process-group.js';

/** How a command ended, with its stdout and stderr interleaved as they came. */
export interface CommandResult {
  code: number | null;
  output: string;
}

/** A running command whose stdout and stderr are collected into `output`. */
export interface StartedCommand {
  /** Everything written so far, stdout and stderr interleaved. */
  readonly output: string;
  /** Resolves when the command has ended and its output is closed; rejects if it could not start. */
  readonly done: Promise<CommandResult>;
  /**
   * SIGTERM to the command's process group (what it started too: `npx` and the command it runs), SIGKILL
   * after 5 s; resolves once the group is gone.
   */
  stop(): Promise<void>;
}

/** Start `command args` in `cwd` with exactly `env` (stdin closed), collecting its output. */
export function startCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): StartedCommand {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const done = new Promise<CommandResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  return {
    get output() {
      return output;
    },
    done,
    async stop() {
      // Not only `child`: `npx siegel-bunker` leaves `siegel-bunker` running when `npx` alone is stopped.
      await stopProcessGroup(child);
    },
  };
}

/** Run `command args` in `cwd` with exactly `env` (stdin closed) to its end. */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  return startCommand(command, args, options).done;
}
