// `siegel-server` as a command: the installed bin (server/bin) answers --version and --help without
// starting, and refuses an argument it does not know instead of starting with it ignored. (On a Node older
// than it needs it says so in one line: test/repo/node-version.test.ts, for every CLI.)
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { occupiedPort } from '../support/free-port.js';

const BIN = new URL('../../server/bin/siegel-server.js', import.meta.url).pathname;
const VERSION = (
  JSON.parse(readFileSync(new URL('../../server/package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

async function run(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      timeout: 20_000,
      ...(options.cwd && { cwd: options.cwd }),
      ...(options.env && { env: options.env }),
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

  // Issue 39, item 7: Node's bare `listen EADDRINUSE` and a stack trace named neither PORT nor a way out.
  it('a port in use exits 1 with one line naming the port and PORT', async () => {
    const { port, server } = await occupiedPort();
    const dir = await mkdtemp(join(tmpdir(), 'siegel-server-port-'));
    try {
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !/^(BUNKER_|SIEGEL_|VITEST)/.test(name)),
      ) as Record<string, string>;
      const result = await run([], {
        cwd: dir,
        env: {
          ...env,
          HOST: '127.0.0.1',
          PORT: String(port),
          BASE_URL: `http://127.0.0.1:${port}`,
          SIEGEL_DATA_DIR: join(dir, 'data'),
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `siegel-server: port ${port} on 127.0.0.1 is in use by another process: stop it, or set another port with PORT (e.g. PORT=${port + 1}; PORT=0 picks a free one)\n`,
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
