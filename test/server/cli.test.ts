// `siegel-server` as a command: the installed bin (server/bin) answers --version and --help without
// starting, and refuses an argument it does not know instead of starting with it ignored. On a Node older
// than it needs it says so in one line (issue 22: Node 20 crashed with ERR_UNKNOWN_BUILTIN_MODULE and a
// stack trace).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../server/bin/siegel-server.js', import.meta.url).pathname;
const VERSION = (
  JSON.parse(readFileSync(new URL('../../server/package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

async function run(
  args: string[],
  node = process.execPath,
  nodeArgs: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(node, [...nodeArgs, BIN, ...args], {
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * A Node older than 22.13 to start the bin with: the system's (`/usr/bin/node`, Node 20 on the CI image)
 * when it is one; else this Node told it is 20.20.2 before the bin runs (`process.versions.node` is what the
 * bin reads).
 */
async function oldNode(): Promise<{ node: string; nodeArgs: string[]; version: string }> {
  const system = await promisify(execFile)('/usr/bin/node', ['--version']).then(
    ({ stdout }) => stdout.trim().slice(1),
    () => '',
  );
  const [major = 0, minor = 0] = system.split('.').map(Number);
  if (system !== '' && (major < 22 || (major === 22 && minor < 13)))
    return { node: '/usr/bin/node', nodeArgs: [], version: system };
  const pretend = "Object.defineProperty(process.versions, 'node', { value: '20.20.2' })";
  return {
    node: process.execPath,
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`],
    version: '20.20.2',
  };
}

describe('siegel-server', () => {
  it('on a Node older than 22.13 says which Node it needs in one line, exit 1, no stack trace', async () => {
    const { node, nodeArgs, version } = await oldNode();
    const result = await run([], node, nodeArgs);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `siegel-server needs Node 22.13 or newer (for node:sqlite); this is Node ${version} (${node})\n`,
    });
  });

  it.each([['--version'], ['-v']])('%s prints the package version and exits 0', async (flag) => {
    expect(await run([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('--help prints the usage and exits 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: siegel-server \[--dev\]/);
    expect(result.stdout).toContain('SIGN_API_TOKENS');
  });

  it('an unknown argument is refused with the usage, exit 2', async () => {
    const result = await run(['--port=9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^siegel-server: unknown argument `--port=9`\n\nUsage:/);
    expect(result.stdout).toBe('');
  });
});
