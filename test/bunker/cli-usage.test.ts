// `siegel-bunker`'s exit codes, as packages/bunker/README.md documents them: 0 done (or `--help`,
// `--version`), 2 a usage error (no command, unknown command, unknown option), 1 anything that failed at run
// time. And `--version` of both CLIs (issue 12): the version in the package's own package.json.
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { runBunkerCli } from '../support/bunker-process.js';
import { occupiedPort } from '../support/free-port.js';

// Timeouts (docs/testing.md): CLI runs with key derivations: 8 s among parallel files
vi.setConfig({ testTimeout: 45_000 });

/** `version` of a package's package.json, read by the test on its own. */
async function packageVersion(name: 'bunker' | 'core'): Promise<string> {
  const path = new URL(`../../packages/${name}/package.json`, import.meta.url);
  return (JSON.parse(await readFile(path, 'utf8')) as { version: string }).version;
}

const USAGE_LINES = [
  'Usage:',
  'siegel-bunker start [--host 127.0.0.1] [--port 7777] [--data-dir DIR] [--dev]',
  'siegel-bunker keys add NAME [--generate | --import KEY|-]',
  'siegel-bunker keys list [--data-dir DIR] [--json]',
  'siegel-bunker --version | --help',
  'BUNKER_API_TOKEN',
];

describe('siegel-bunker exit codes', () => {
  // Issue 39, item 7: Node's bare `listen EADDRINUSE 127.0.0.1:7777` named neither the flag nor a way out.
  it('a port in use exits 1 with one line naming the port and `--port`', async () => {
    const { port, server } = await occupiedPort();
    try {
      const result = await runBunkerCli(['start', '--dev', '--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `siegel-bunker: port ${port} on 127.0.0.1 is in use by another process: stop it, or start on another port with \`--port\` (e.g. \`--port ${port + 1}\`; \`--port 0\` picks a free one)\n`,
      );
    } finally {
      server.close();
    }
  });

  it('`--help` prints the usage on stdout and exits 0', async () => {
    const result = await runBunkerCli(['--help']);
    expect(result.code, result.stderr).toBe(0);
    for (const line of USAGE_LINES) expect(result.stdout).toContain(line);
    expect(result.stderr).toBe('');
  });

  it('no command prints the usage and exits 2', async () => {
    const result = await runBunkerCli([]);
    expect(result.code).toBe(2);
    for (const line of USAGE_LINES) expect(result.stdout).toContain(line);
  });

  it('an unknown command exits 2, naming it, with the usage', async () => {
    const result = await runBunkerCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command `frobnicate`');
    expect(result.stderr).toContain('siegel-bunker keys list');
  });

  it('an unknown option exits 2', async () => {
    const result = await runBunkerCli(['start', '--no-such-option']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--no-such-option');
  });

  // Regression: `keys` usage errors used to exit 1, unlike every other usage error.
  it('an unknown `keys` subcommand, a missing NAME, or --generate with --import exit 2', async () => {
    const unknown = await runBunkerCli(['keys', 'frob']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown `keys` command `frob`');
    const missing = await runBunkerCli(['keys', 'add']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('siegel-bunker keys add NAME');
    const both = await runBunkerCli(['keys', 'add', 'k', '--generate', '--import', 'nsec1x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });

  it('a value that is wrong at run time exits 1 (not a usage error)', async () => {
    const result = await runBunkerCli(['start', '--port', 'seventy']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`--port` must be a port number, got `seventy`');
  });
});

describe('--version', () => {
  it('`siegel-bunker --version` and `-v` print the package version and exit 0', async () => {
    const version = await packageVersion('bunker');
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-v']) {
      const result = await runBunkerCli([flag]);
      expect(result, flag).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('`siegel --version` and `-v` print the package version and exit 0', async () => {
    const version = await packageVersion('core');
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag], tmpdir());
      expect(result, flag).toEqual({ code: 0, signal: null, stdout: `${version}\n`, stderr: '' });
    }
  });
});
