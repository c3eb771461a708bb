// `siegel-server` as a command: the installed bin (server/bin) answers --version and --help without
// starting, and refuses an argument it does not know instead of starting with it ignored. (On a Node older
// than it needs it says so in one line: test/repo/node-version.test.ts, for every CLI.)
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

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('siegel-server', () => {
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
