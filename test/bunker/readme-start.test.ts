// Issue 39, item 7: packages/bunker/README.md's "Start a bunker" block failed as written (`keys add
// --passphrase-file ~/.siegel-passphrase` needs the file first). The block is read from the README and run by
// bash as it stands, in a fresh HOME and working directory, with `siegel-bunker` the package's CLI. The one
// change: `start` gets `--port 0` after the README's arguments, so the test never needs 7777 free.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../integrations/support/example-project.js';
import { eventually } from '../support/eventually.js';
import { readmeBlock } from '../support/readme-blocks.js';

// Timeouts (docs/testing.md): two scrypt key derivations and a bunker start, 3–10 s on a shared machine
vi.setConfig({ testTimeout: 60_000 });

const CLI = join(REPO_ROOT, 'packages/bunker/dist/cli.js');
let home: string | undefined;

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('packages/bunker/README.md, "Start a bunker"', () => {
  it('runs as written: makes the passphrase file, adds the key, starts with it locked', async () => {
    const block = readmeBlock('packages/bunker/README.md', 'sh', 'export BUNKER_API_TOKEN=');
    home = await mkdtemp(join(tmpdir(), 'siegel-bunker-readme-'));
    const bin = join(home, 'bin');
    await mkdir(bin);
    const shim = join(bin, 'siegel-bunker');
    await writeFile(
      shim,
      `#!/bin/sh\nif [ "$1" = start ]; then exec "${process.execPath}" "${CLI}" "$@" --port 0; fi\nexec "${process.execPath}" "${CLI}" "$@"\n`,
    );
    await chmod(shim, 0o755);

    const child = spawn('bash', ['-e', '-c', block], {
      cwd: home,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await eventually(() => /^SIEGEL_BUNKER_READY /m.test(output) || child.exitCode !== null, 45_000, 100);
      expect(child.exitCode, output).toBeNull();
      const ready = JSON.parse(/^SIEGEL_BUNKER_READY (.*)$/m.exec(output)?.[1] ?? '{}');
      expect(ready.keys).toEqual(['default']);
      // The passphrase file is the user's alone, and the key it encrypts is in the default data directory.
      expect((await stat(join(home, '.siegel-passphrase'))).mode & 0o077).toBe(0);
      expect((await stat(join(home, '.bunker/keys/default.json'))).isFile()).toBe(true);
    } finally {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    }
    await exited;
  });
});
