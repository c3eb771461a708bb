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
