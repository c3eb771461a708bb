import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, runCliOnTerminal } from './support/run-cli.js';
import { createFixtureProject } from './support/site-fixture.js';

// Timeouts (docs/testing.md): CLI runs over generated sites: 6 s alone, 25 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

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
    expect(help.stdout).toContain('siegel publish [dir]');
    expect(help.stdout).toContain('Exit codes: 0 success (verify: every page valid, warnings allowed)');
    expect(help.stdout).toContain('--json ');
    const version = await runCli(['--version'], root);
    const pkg = JSON.parse(
      await readFile(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    );
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect((await runCli([], root)).code).toBe(2);
    // A bad --relay is named as the flag typed, not as the API's `relays` (issue 22).
    for (const command of ['sign', 'publish', 'verify']) {
      const badRelay = await runCli([command, '--relay', 'ws://relay.example.com'], root);
      expect(badRelay.code, command).toBe(2);
      expect(badRelay.stderr, command).toContain(
        'Relay `ws://relay.example.com` (--relay) must be a wss:// URL',
      );
    }
    const unknown = await runCli(['unpublish'], root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command `unpublish` (use sign, verify or publish)');
    const allWithoutRelays = await runCli(['publish', '--all'], root);
    expect(allWithoutRelays.code).toBe(2);
    expect(allWithoutRelays.stderr).toContain('`--all` needs relays: `--relay wss://…` or SIEGEL_RELAYS');
    expect((await runCli(['sign', '--frobnicate'], root)).code).toBe(2);
    const noSite = await runCli(['sign'], root, { BUNKER_API_TOKEN: 't' });
    expect(noSite.code).toBe(2);
    expect(noSite.stderr).toMatch(/site URL is required/);
    const missingDir = await runCli(['sign', 'nope', '--site', 'https://example.com'], root, {
      BUNKER_API_TOKEN: 't',
    });
    expect(missingDir.code).toBe(2);
    expect(missingDir.stderr).toMatch(/does not exist/);
  }, 60_000); // eight CLI processes: a few seconds alone, more on a loaded machine

  it('checks the limits and network options: usage errors (exit 2) quoting the bad value', async () => {
    const { root, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    const cases: Array<[string[], string]> = [
      [
        ['verify', 'https://example.com/', '--request-timeout', 'soon'],
        '`--request-timeout` must be a number of seconds greater than 0, got `soon`',
      ],
      [
        ['verify', 'https://example.com/', '--total-timeout', '0'],
        '`--total-timeout` must be a number of seconds greater than 0, got `0`',
      ],
      [
        ['verify', 'dist', '--max-page-bytes', 'lots'],
        '`--max-page-bytes` must be a size in bytes such as `33554432` or `32MiB`, got `lots`',
      ],
      [
        ['verify', 'https://example.com/', '--allow-redirects-to', 'www.example.com'],
        '`--allow-redirects-to` takes an origin such as `https://www.example.com`, got `www.example.com`',
      ],
      [
        ['verify', 'dist', '--allow-redirects-to', 'https://www.example.com'],
        '`--allow-redirects-to` is for verify <url>',
      ],
      [['sign', 'dist', '--request-timeout', '3'], '`--request-timeout` is for verify'],
      [
        ['sign', 'dist', '--publish-timeout', 'soon'],
        '`--publish-timeout` must be a number of seconds (0 or more), got `soon`',
      ],
      [['verify', 'dist', '--publish-timeout', '3'], '`--publish-timeout` is for sign and publish'],
      [
        ['sign', 'dist', '--mirror', 'ftp://mirror.example'],
        'The mirror URL `ftp://mirror.example` must start with http:// or https:// (`--mirror`)',
      ],
      [['verify', 'dist', '--mirror', 'https://mirror.example'], '`--mirror` is for sign'],
      [['publish', 'dist', '--mirror', 'https://mirror.example'], '`--mirror` is for sign'],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, root);
      expect(`${args.join(' ')} → ${run.code} ${run.stderr.split('\n')[0]}`).toBe(
        `${args.join(' ')} → 2 ${message}`,
      );
    }
  }, 60_000);

  it('refuses an unsupported --selector in sign exactly as verify does: exit 2, no page touched (issue 24, acceptance 5)', async () => {
    const { root, dist, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: 'https://example.com' };
    const before = await readFile(join(dist, 'index.html'), 'utf8');
    const verify = await runCli(['verify', 'dist', '--selector', 'main:first-child'], root, env);
    const sign = await runCli(['sign', 'dist', '--selector', 'main:first-child'], root, env);
    expect(verify.code, verify.stderr).toBe(2);
    expect(verify.stderr).toContain(
      'Unsupported selector `main:first-child`: `:first-child` is not supported',
    );
    expect(sign).toMatchObject({ code: 2, stdout: '' });
    // The same usage error, and nothing about pages: the local-key notice is the only other line; each
    // points at its own command's help.
    expect(sign.stderr.split('\n').filter((line) => !line.startsWith('Signing in-process'))).toEqual(
      verify.stderr.replace('siegel verify --help', 'siegel sign --help').split('\n'),
    );
    expect(await readFile(join(dist, 'index.html'), 'utf8')).toBe(before);
  }, 30_000);

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
    expect(failed.stdout).toContain('INVALID   about.html');
    // --json: per page the verdict and the problem codes; the same exit code.
    const json = await runCli(['verify', 'dist', '--json'], root);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      valid: number;
      invalid: number;
      notFound: number;
      pages: Array<{ page: string; verdict: string; problems: Array<{ code: string; severity: string }> }>;
    };
    expect(report).toMatchObject({ ok: false, valid: 3, invalid: 1, notFound: 0 });
    const judged = Object.fromEntries(
      report.pages.map((page) => [page.page, [page.verdict, ...page.problems.map((p) => p.code)]]),
    );
    // SITE_URL from .env is the address the directory's pages are judged at: no address.unchecked.
    // No relay configured: currency unchecked (issue 36), a warning beside each verdict.
    expect(judged['about.html']).toEqual(['invalid', 'hash.mismatch', 'block.hash', 'manifest.unchecked']);
    expect(judged['index.html']).toEqual(['valid', 'manifest.unchecked']);
    // An event that cannot be found: not found, counted apart, exit 1.
    const eventId = /name="nostr:event" content="([0-9a-f]{64})"/.exec(
      await readFile(join(dist, 'index.html'), 'utf8'),
    )?.[1];
    const eventFile = join(dist, 'verify', `${eventId}.json`);
    const eventJson = await readFile(eventFile, 'utf8');
    await rm(eventFile);
    const missing = await runCli(['verify', 'dist', '--json'], root);
    expect(missing.code).toBe(1);
    const missingReport = JSON.parse(missing.stdout) as typeof report;
    expect(missingReport).toMatchObject({ invalid: 1, notFound: 1 });
    expect(missingReport.pages.find((page) => page.page === 'index.html')).toMatchObject({
      verdict: 'not_found',
      problems: [{ code: 'event.not_found', severity: 'error' }],
    });
    expect((await runCli(['verify', 'dist'], root)).stdout).toContain(', 1 not found,');
    await writeFile(eventFile, eventJson);
    // --site is for a directory; a URL is judged where it is served.
    const usage = await runCli(['verify', 'https://example.com/', '--site', 'https://example.com'], root);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('`--site` is for verify <dir>');
    // A page over --max-page-bytes: not read, invalid with the limit named; signing refuses it the same way.
    const small = await runCli(['verify', 'dist', '--max-page-bytes', '100'], root);
    expect(small.code).toBe(1);
    expect(small.stdout).toMatch(
      /INVALID {3}index\.html\n {2}- page too large: `\d{3,4}` bytes, more than the limit of `100` bytes; not checked — raise it with `--max-page-bytes` \[page\.too_large\]\n/,
    );
    const refused = await runCli(['sign', '--max-page-bytes', '100'], root);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /^Siegel: 0 signed, 0 unchanged, 0 skipped \(no <main>\), 5 failed\n {2}failed {3}about\.html: page too large/,
    );
  }, 60_000);

  it('gives every command a --help with its options and one example (exit 0), `siegel help verify` too', async () => {
    const { root, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    const own: Record<string, { has: string[]; lacks: string[] }> = {
      sign: { has: ['--site URL', '--dry-run', '--mirror URL', '--publish-timeout S'], lacks: ['--pubkey'] },
      verify: { has: ['--pubkey P', '--json', '--check-cloaking', '--site URL'], lacks: ['--dry-run'] },
      publish: { has: ['--all', '--relay URL', '--cache FILE'], lacks: ['--site', '--selector'] },
    };
    for (const [command, { has, lacks }] of Object.entries(own)) {
      const help = await runCli([command, '--help'], root);
      expect(help.code, command).toBe(0);
      expect(help.stdout.split('\n')[0], command).toMatch(new RegExp(`^Usage: siegel ${command} \\[`));
      expect(help.stdout, command).toMatch(new RegExp(`\\nExample:\\n  siegel ${command} \\S`));
      expect(help.stdout, command).toContain('-h, --help');
      for (const option of has) expect(help.stdout, `${command} ${option}`).toContain(`  ${option} `);
      for (const option of lacks) expect(help.stdout, `${command} ${option}`).not.toContain(`${option} `);
      expect((await runCli([command, '-h'], root)).stdout, command).toBe(help.stdout);
    }
    expect((await runCli(['help', 'verify'], root)).stdout).toBe(
      (await runCli(['verify', '--help'], root)).stdout,
    );
    const main = await runCli(['--help'], root);
    expect(main.stdout).toContain('siegel <command> --help');
    expect(main.stdout).toMatch(/\nExample:\n {2}siegel sign \S/);
  }, 60_000); // eleven CLI processes

  it('words each mistake once, in sign and verify alike (exit 2, pointing at the command’s help)', async () => {
    const { root, cleanup } = await createFixtureProject();
    cleanups.push(cleanup);
    const cases: Array<[string[], string]> = [
      [['sign', '--sitee', 'https://example.com'], 'Unknown option `--sitee` (did you mean `--site`?)'],
      [
        ['verify', 'dist', '--sitee', 'https://example.com'],
        'Unknown option `--sitee` (did you mean `--site`?)',
      ],
      [['verify', 'dist', '--pubky', 'npub1x'], 'Unknown option `--pubky` (did you mean `--pubkey`?)'],
      [['sign', '--dryrun'], 'Unknown option `--dryrun` (did you mean `--dry-run`?)'],
      [['sign', '--frobnicate'], 'Unknown option `--frobnicate`'],
      [['sign', '-x'], 'Unknown option `-x`'],
      [['sign', '--site'], '`--site` needs a value: `--site URL`'],
      [['sign', '--verbose=yes'], '`--verbose` takes no value, got `--verbose=yes`'],
      [['sign', '--pubkey', 'npub1x'], '`--pubkey` is for verify'],
      [['verify', 'dist', '--cache', 'c.json'], '`--cache` is for sign and publish'],
      [
        ['sign', 'dist', '--site', 'example.com'],
        'The site URL `example.com` is not an absolute URL (`--site`)',
      ],
      [
        ['verify', 'dist', '--site', 'example.com'],
        'The site URL `example.com` is not an absolute URL (`--site`)',
      ],
      [
        ['sign', 'dist', '--site', 'ftp://example.com'],
        'The site URL `ftp://example.com` must start with http:// or https:// (`--site`)',
      ],
      [
        ['verify', 'dist', '--site', 'ftp://example.com'],
        'The site URL `ftp://example.com` must start with http:// or https:// (`--site`)',
      ],
      [
        ['sign', 'nope', '--site', 'https://example.com'],
        `The output directory \`${join(root, 'nope')}\` does not exist`,
      ],
      [['verify', 'nope'], `The output directory \`${join(root, 'nope')}\` does not exist`],
      [
        ['verify', 'htp://example.com/'],
        '`htp://example.com/` looks like a URL, but not an http:// or https:// one: verify takes a directory or an http(s) URL',
      ],
      [
        ['verify', 'https:/example.com/'],
        '`https:/example.com/` looks like a URL, but not an http:// or https:// one: verify takes a directory or an http(s) URL',
      ],
    ];
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64) };
    for (const [args, message] of cases) {
      const run = await runCli(args, root, env);
      const lines = run.stderr.split('\n').filter((line) => !line.startsWith('Signing in-process'));
      expect(`${args.join(' ')} → ${run.code} ${lines.slice(0, 2).join(' / ')}`).toBe(
        `${args.join(' ')} → 2 ${message} / Run \`siegel ${args[0]} --help\` for usage.`,
      );
    }
    // A SITE_URL from .env is named as such, by sign and verify alike.
    for (const command of ['sign', 'verify']) {
      const run = await runCli([command, 'dist'], root, { ...env, SITE_URL: 'example.com' });
      expect(run.code, command).toBe(2);
      expect(run.stderr, command).toContain('The site URL `example.com` is not an absolute URL (`SITE_URL`)');
    }
  }, 90_000); // twenty CLI processes

  it('shows verify’s progress on stderr on a terminal, as sign’s, and none otherwise', async () => {
    const pages: Record<string, string> = {};
    for (let i = 0; i < 120; i++) pages[`p${i}.html`] = `<title>P${i}</title><main><p>page ${i}</p></main>`;
    const { root, cleanup } = await createFixtureProject(pages);
    cleanups.push(cleanup);
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: 'https://example.com' };
    const signed = await runCliOnTerminal(['sign', 'dist'], root, env);
    expect(signed.code, signed.output).toBe(0);
    expect(signed.output).toContain('\rSiegel: 120/120 pages');
    const verified = await runCliOnTerminal(['verify', 'dist'], root, env);
    expect(verified.code, verified.output).toBe(0);
    expect(verified.output).toContain('\rSiegel: 120/120 pages');
    // The line is cleared before the report.
    const cleared = verified.output.lastIndexOf('\r\u001b[K');
    expect(cleared).toBeGreaterThan(verified.output.lastIndexOf('120/120 pages'));
    expect(verified.output.indexOf('120 valid', cleared)).toBeGreaterThan(cleared);
    const piped = await runCli(['verify', 'dist'], root, env);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('pages');
  });
});
