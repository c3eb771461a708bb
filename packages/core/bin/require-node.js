// One Node check for every launcher — `siegel`, `siegel-bunker`, `siegel-server` — in syntax any Node
// parses and with nothing but node:fs: on an older Node the CLIs fail somewhere inside (node:sqlite,
// WebSocket, …) with a stack trace. The version needed is the one `engines.node` of the package names.
import { readFileSync } from 'node:fs';
import nodeModule from 'node:module';

/**
 * Exit 1 with one line on stderr when this Node is older than `engines.node` of the package.json at
 * `packageJson` (a URL or path); `why` is said after the version, e.g. ` (for node:sqlite)`.
 *
 * @example
 * requireNode('siegel', new URL('../package.json', import.meta.url));
 */
export function requireNode(command, packageJson, why = '') {
  const { engines } = JSON.parse(readFileSync(packageJson, 'utf8'));
  const [, major = '0', minor = '0'] = /(\d+)(?:\.(\d+))?/.exec(engines?.node ?? '') ?? [];
  const [have = 0, haveMinor = 0] = process.versions.node.split('.').map(Number);
  if (have > Number(major) || (have === Number(major) && haveMinor >= Number(minor))) return;
  process.stderr.write(
    `${command} needs Node ${major}.${minor} or newer${why}; this is Node ${process.versions.node} (${process.execPath}). Install a current Node (https://nodejs.org) and run it again.\n`,
  );
  process.exit(1);
}

/**
 * Let Node keep the compiled code of the modules a launcher loads on disk (`module.enableCompileCache`,
 * Node 22.1+; in the OS temp directory unless `NODE_COMPILE_CACHE` names another, off with
 * `NODE_DISABLE_COMPILE_CACHE=1`), as TypeScript's `tsc` does: a command started again compiles none of
 * them. Call it after `requireNode`.
 */
export function cacheCompiledCode() {
  nodeModule.enableCompileCache?.();
}

/**
 * The V8 flags `siegel` runs with. `--max-semi-space-size=4` (MiB): Node 24 sizes the main thread's young
 * generation from the machine's memory (128 MiB of new space on a 24 GiB machine), and a signing run's main
 * thread, which allocates steadily while it reads, signs and writes, grows it to the full size. Measured with
 * `bench/sign-site` at 10 000 pages, side by side in one session (peak RSS, cold run / `siegel verify`):
 * Node's default 491 / 339–359 MB, 16 MiB 435 / 307 MB, 8 MiB 395 / 279 MB, 4 MiB 345 / 262 MB, with the
 * same CPU time within that machine's noise (the pages are parsed on worker threads, whose young
 * generations are sized where they start: page/parse-pool.ts, fs/file-io.ts).
 *
 * `--heap-growing-percent=50`: after each full collection V8 lets the old generation grow to 1.5× what
 * survived before it collects again, instead of its own factor of up to 4× — for every thread of the process
 * (V8 flags are the process's; a worker's `resourceLimits` cannot set it). Side by side, two rounds each at
 * 10 000 pages, peak RSS cold / verify: V8's own factor 363–389 / 246–251 MB, 100 % 305–323 / 223–234 MB,
 * 50 % 275–284 / 201–214 MB, 25 % 271–285 / 193–203 MB; the cold run's CPU time 3–5 % more at 50 %
 * (within the noise), more at 25 %.
 */
export const SIEGEL_NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/**
 * The environment `siegel` runs with, each variable unless it is set already. `MALLOC_ARENA_MAX=2`: glibc's
 * malloc gives each thread that allocates (the main thread, the parse workers, the I/O thread, V8's and
 * libuv's helpers) an arena of its own, up to eight per core, and keeps what was freed in each; with two,
 * peak RSS of a 10 000-page cold run went 287 → 254 MB (warm 229 → 197, `siegel verify` 198 → 195; without
 * the old-generation flag above 380–389 → 351–362 MB), CPU time the same within the noise. Other C
 * libraries (musl) ignore it.
 */
export const SIEGEL_NODE_ENV = { MALLOC_ARENA_MAX: '2' };

/** `--max_semi_space_size=4` and `--max-semi-space-size=4` name the same V8 option: its name, dashed. */
const optionOf = (flag) => flag.split('=')[0].replaceAll('_', '-');

/**
 * Start this launcher again as the same process with `flags` for Node before its own and the variables of
 * `env` (`process.execve`: same pid, stdio and signals — no second process), unless each flag's option is
 * set already on Node's command line or in `NODE_OPTIONS` and each variable in the environment (the user's
 * own values win), or Node cannot (Windows, a Node without `process.execve`): the command then runs with
 * Node's defaults. Call it after `requireNode`, before anything is loaded or written.
 */
export function restartWithNodeFlags(flags, env = {}) {
  const set = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(optionOf);
  const missing = flags.filter((flag) => !set.includes(optionOf(flag)));
  const unset = Object.keys(env).filter((name) => process.env[name] === undefined);
  if (missing.length + unset.length === 0) return;
  if (typeof process.execve !== 'function' || process.platform === 'win32') return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
      { ...env, ...process.env },
    );
  } catch {
    // Not allowed here (a sandbox, an execPath that is gone): run on with Node's defaults.
  }
}
