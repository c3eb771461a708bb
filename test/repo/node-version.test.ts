import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The repository pins Node 24 as a root devDependency so every npm script runs under it, even where the
// system Node is older. If that pin breaks, tests would silently run under the system Node: fail loudly.
describe('toolchain', () => {
  it('runs the tests under the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});

// Issue 22: every CLI says in one line which Node it needs (its package's `engines`), instead of failing
// inside with a stack trace (siegel-server: ERR_UNKNOWN_BUILTIN_MODULE for node:sqlite). One check,
// packages/core/bin/require-node.js, for the three launchers.
const LAUNCHERS = [
  ['siegel', 'packages/core/bin/siegel.js', 'packages/core/package.json', ''],
  ['siegel-bunker', 'packages/bunker/bin/siegel-bunker.js', 'packages/bunker/package.json', ''],
  ['siegel-server', 'server/bin/siegel-server.js', 'server/package.json', ' (for node:sqlite)'],
] as const;
const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** Run a launcher with `node` and `args`; its exit code and output. */
async function launch(
  node: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(node, args, { env: {}, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('every CLI on a Node older than its engines', () => {
  it.each(LAUNCHERS)(
    '%s says which Node it needs in one line, exit 1, no stack trace',
    async (command, launcher, pkg, why) => {
      const [, major, minor = '0'] = /(\d+)(?:\.(\d+))?/.exec(
        (JSON.parse(readFileSync(root(pkg), 'utf8')) as { engines: { node: string } }).engines.node,
      ) as RegExpExecArray;
      // This Node, told it is 20.20.2 before the launcher runs (`process.versions.node` is what it reads).
      const pretend = "Object.defineProperty(process.versions, 'node', { value: '20.20.2' })";
      const old = await launch(process.execPath, [
        '--import',
        `data:text/javascript,${encodeURIComponent(pretend)}`,
        root(launcher),
        '--help',
      ]);
      expect(old).toEqual({
        code: 1,
        stdout: '',
        stderr: `${command} needs Node ${major}.${minor} or newer${why}; this is Node 20.20.2 (${process.execPath}). Install a current Node (https://nodejs.org) and run it again.\n`,
      });
      // And this machine's system Node, when it is older (Debian's 20): the real thing, one line.
      const system = await launch('/usr/bin/node', ['--version']);
      const [have = 0, haveMinor = 0] = system.stdout.trim().slice(1).split('.').map(Number);
      if (
        system.code === 0 &&
        (have < Number(major) || (have === Number(major) && haveMinor < Number(minor)))
      ) {
        const real = await launch('/usr/bin/node', [root(launcher), '--help']);
        expect(real.code).toBe(1);
        expect(real.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(new RegExp(`^${command} needs Node ${major}\\.${minor} or newer`)),
        ]);
      }
      // On this Node the launcher runs the CLI.
      expect((await launch(process.execPath, [root(launcher), '--help'])).code).toBe(0);
    },
  );
});

// Issue 41: `siegel` starts again as the same process with SIEGEL_NODE_FLAGS (a 4 MiB semi-space: Node 24
// gives the main thread 128 MiB of new space on this machine, which a signing run fills; and an old
// generation that grows by half, not up to fourfold, between full collections) and SIEGEL_NODE_ENV (two
// malloc arenas), unless the user set them. A probe preloaded with `--import` reports, at exit, the flags and the new space of the
// process that ran the CLI; the first image never exits, so there is exactly one report.
describe('siegel runs with its V8 flags and malloc arenas', () => {
  const probe = `data:text/javascript,${encodeURIComponent(
    [
      "import v8 from 'node:v8';",
      "process.on('exit', () => {",
      "  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');",
      '  const execArgv = process.execArgv.filter((a) => /^--(max|heap)/.test(a));',
      '  const arenas = process.env.MALLOC_ARENA_MAX;',
      '  const report = JSON.stringify({ execArgv, arenas, newSpaceMb: space.space_size / 1048576 });',
      "  process.stdout.write('\\nPROBE ' + report + '\\n');",
      '});',
    ].join('\n'),
  )}`;
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...args, '--import', probe, root('packages/core/bin/siegel.js'), '--version'],
      { env, timeout: 30_000 },
    );
    const reports = stdout.split('\n').filter((line) => line.startsWith('PROBE '));
    expect(reports).toHaveLength(1);
    expect(stdout.split('\n')[0]).toMatch(/^\d+\.\d+\.\d+$/);
    return JSON.parse((reports[0] as string).slice(6)) as {
      execArgv: string[];
      arenas: string | undefined;
      newSpaceMb: number;
    };
  };

  it('adds its flags when nothing sets them: the young generation stays small', async () => {
    const report = await run([]);
    expect(report.execArgv).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=50']);
    expect(report.arenas).toBe('2');
    expect(report.newSpaceMb).toBeLessThanOrEqual(8);
  });

  it("keeps the user's own values, on Node's command line or in NODE_OPTIONS (either spelling)", async () => {
    expect((await run(['--max-semi-space-size=32'])).execArgv).toEqual([
      '--heap-growing-percent=50',
      '--max-semi-space-size=32',
    ]);
    expect((await run(['--heap_growing_percent=200'])).execArgv).toEqual([
      '--max-semi-space-size=4',
      '--heap_growing_percent=200',
    ]);
    const fromEnv = await run([], { NODE_OPTIONS: '--max_semi_space_size=32' });
    expect(fromEnv.execArgv).toEqual(['--heap-growing-percent=50']);
    expect((await run([], { MALLOC_ARENA_MAX: '8' })).arenas).toBe('8');
    // Every flag and the variable the user's own.
    const all = await run(['--max-semi-space-size=4', '--heap-growing-percent=80'], {
      MALLOC_ARENA_MAX: '3',
    });
    expect(all).toMatchObject({
      execArgv: ['--max-semi-space-size=4', '--heap-growing-percent=80'],
      arenas: '3',
    });
    expect(fromEnv.newSpaceMb).toBeGreaterThan(8);
  });
});
