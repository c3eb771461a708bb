import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { createFixtureProject } from './support/site-fixture.js';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

describe('siegel CLI (built dist/cli.js)', () => {
  it('--help and --version exit 0; usage errors exit 2', async () => {
    const { root, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    const help = await runCli(['--help'], root);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('siegel sign [dir]');
    expect(help.stdout).toContain('Exit codes: 0 success, 1 signing or verification failed, 2 usage error.');
    const version = await runCli(['--version'], root);
    const pkg = JSON.parse(
      await readFile(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    );
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect((await runCli([], root)).code).toBe(2);
    const unknown = await runCli(['publish'], root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command `publish`');
    expect((await runCli(['sign', '--frobnicate'], root)).code).toBe(2);
    const noSite = await runCli(['sign'], root, { BUNKER_API_TOKEN: 't' });
    expect(noSite.code).toBe(2);
    expect(noSite.stderr).toMatch(/site URL is required/);
    const missingDir = await runCli(['sign', 'nope', '--site', 'https://example.com'], root, {
      BUNKER_API_TOKEN: 't',
    });
    expect(missingDir.code).toBe(2);
    expect(missingDir.stderr).toMatch(/does not exist/);
  });

  it('signs offline with a local key from .env, verifies (0), and fails verification on a change (1)', async () => {
    const { root, dist, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    await writeFile(
      join(root, '.env'),
      `SIEGEL_SECRET_KEY=${'9'.repeat(64)}\nSITE_URL=https://example.com\n`,
    );
    const dry = await runCli(['sign', '--dry-run'], root);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('4 would be signed');
    const signed = await runCli(['sign', '--verbose'], root);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^Siegel: 4 signed, 0 unchanged, 1 skipped \(no <main>\), 0 failed\n/);
    expect(signed.stdout).toMatch(/skipped\s+no-main\.html/);
    expect((await runCli(['verify'], root)).code).toBe(0);
    const about = join(dist, 'about.html');
    await writeFile(about, (await readFile(about, 'utf8')).replace('make', 'fake'));
    const failed = await runCli(['verify', 'dist'], root);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('INVALID  about.html');
  });
});
