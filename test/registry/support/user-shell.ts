import { realpathSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CommandResult,
  runCommand,
  type StartedCommand,
} from '../../integrations/support/run-command.js';

/** The repository's Node 24 (the `node` devDependency), the Node a user of Siegel is assumed to run. */
const NODE_24 = realpathSync(new URL('../../../node_modules/.bin/node', import.meta.url));

/**
 * A shell as a new user has it, for commands run in projects outside the repository: the system's `npm`
 * and `npx`, but `node` is Node 24 (a `bin/node` link first on PATH), and nothing of the test run leaks
 * in — no `npm_*` variables of the `npm test` that started us (`npm_config_local_prefix` would point npm
 * back into the repository), no `BUNKER_*`/`SIEGEL_*` settings, no `NODE_ENV=test` from Vitest.
 */
export async function userShell(dir: string): Promise<UserShell> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  await symlink(NODE_24, join(bin, 'node'));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|NPM_|INIT_CWD$|BUNKER_|SIEGEL_|NODE_ENV$|NODE_OPTIONS$|VITEST|TEST$)/.test(name)) continue;
    // What Vite (under Vitest) puts into process.env: BASE_URL=/ would become the file server's address.
    if (/^(BASE_URL|MODE|DEV|PROD|SSR)$/.test(name)) continue;
    env[name] = value;
  }
  env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  env.NO_COLOR = '1';
  env.CI = '1';
  env.npm_config_update_notifier = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_audit = 'false';
  return new UserShell(env);
}

/** Runs commands the way a user types them, failing with the whole output when one fails. */
export class UserShell {
  constructor(readonly env: NodeJS.ProcessEnv) {}

  /** Run `command` in `cwd`; resolves with its result whatever the exit code. */
  run(
    cwd: string,
    command: string,
    args: string[],
    extraEnv: NodeJS.ProcessEnv = {},
  ): Promise<CommandResult> {
    return runCommand(command, args, { cwd, env: { ...this.env, ...extraEnv } });
  }

  /** Run `command` in `cwd` and insist on exit code 0. */
  async ok(cwd: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await this.run(cwd, command, args, extraEnv);
    if (result.code !== 0) {
      throw new Error(
        `\`${command} ${args.join(' ')}\` in ${cwd} exited with ${result.code}:\n${result.output}`,
      );
    }
    return result.output;
  }
}

/**
 * Wait until `command`'s output matches `pattern` and return the match; fails at once with the output if the
 * command ends first, and after `timeoutMs` otherwise.
 */
export async function waitForOutput(
  command: StartedCommand,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpExecArray> {
  let ended = false;
  void command.done.then(() => {
    ended = true;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(command.output);
    if (match) return match;
    if (ended || Date.now() > deadline) {
      throw new Error(`${ended ? 'ended' : `no ${pattern} within ${timeoutMs} ms`}:\n${command.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
