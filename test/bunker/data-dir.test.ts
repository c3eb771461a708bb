// Issue 10: "a pre-existing world-writable data directory is used silently". A data directory (or its
// keys/ directory) that group or others may write to is refused, naming it and the fix; new ones are made
// 0700.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runBunkerCli, spawnBunker } from '../support/bunker-process.js';

// Timeouts (docs/testing.md): bunker starts on prepared data directories: 12 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

const TOKENS = {
  BUNKER_API_TOKEN: 'data-dir-api-token-0123456789',
  BUNKER_ADMIN_TOKEN: 'data-dir-admin-token-0123456789',
};
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-e2e-data-dir-'));
  dirs.push(dir);
  return dir;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('data directory permissions', () => {
  it('refuses to start on a world- or group-writable data directory, naming it and `chmod 700`, and touches nothing', async () => {
    for (const mode of [0o777, 0o770, 0o707, 0o1777]) {
      const dataDir = join(await temp(), 'shared');
      await mkdir(dataDir);
      await chmod(dataDir, mode);
      const result = await runBunkerCli(['start', '--port', '0', '--data-dir', dataDir], TOKENS);
      const octal = mode.toString(8);
      expect(result.code, octal).toBe(1);
      expect(result.stderr, octal).toContain(`\`${dataDir}\``);
      expect(result.stderr, octal).toContain(`\`chmod 700 ${dataDir}\``);
      expect(result.stderr, octal).toMatch(/writable by (group|others|group and others)/);
      expect(result.stdout, octal).not.toContain('SIEGEL_BUNKER_READY');
      expect(await readdir(dataDir), octal).toEqual([]);
      expect((await stat(dataDir)).mode & 0o7777, octal).toBe(mode);
    }
  });

  it('refuses a writable keys/ directory inside a private data directory', async () => {
    const dataDir = await temp();
    await mkdir(join(dataDir, 'keys'));
    await chmod(join(dataDir, 'keys'), 0o777);
    const result = await runBunkerCli(['start', '--port', '0', '--data-dir', dataDir], TOKENS);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`\`chmod 700 ${join(dataDir, 'keys')}\``);
  });

  it('`keys add` and `keys list` refuse it too, and write no key', async () => {
    const dataDir = await temp();
    await chmod(dataDir, 0o777);
    const add = await runBunkerCli(['keys', 'add', 'k', '--generate', '--data-dir', dataDir], {
      BUNKER_PASSPHRASE: 'data dir passphrase',
    });
    expect(add.code).toBe(1);
    expect(add.stderr).toContain(`\`chmod 700 ${dataDir}\``);
    expect(existsSync(join(dataDir, 'keys'))).toBe(false);
    const list = await runBunkerCli(['keys', 'list', '--data-dir', dataDir]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`\`chmod 700 ${dataDir}\``);
  });

  it('starts after `chmod 700`, and on a private or read-only-for-others directory', async () => {
    const dataDir = await temp();
    await chmod(dataDir, 0o777);
    expect((await runBunkerCli(['keys', 'list', '--data-dir', dataDir])).code).toBe(1);
    await chmod(dataDir, 0o700);
    expect((await runBunkerCli(['keys', 'list', '--data-dir', dataDir])).code).toBe(0);
    await chmod(dataDir, 0o755);
    const bunker = await spawnBunker({ args: ['--port', '0', '--data-dir', dataDir], env: TOKENS });
    expect(await bunker.stop()).toBe(0);
  });

  it('creates a new data directory, its parents and keys/ with mode 0700', async () => {
    const root = await temp();
    const dataDir = join(root, 'a', 'b', 'bunker');
    const bunker = await spawnBunker({ args: ['--port', '0', '--data-dir', dataDir], env: TOKENS });
    expect(await bunker.stop()).toBe(0);
    for (const dir of [join(root, 'a'), join(root, 'a', 'b'), dataDir, join(dataDir, 'keys')]) {
      expect((await modeOf(dir)).toString(8), dir).toBe('700');
    }
    expect((await modeOf(join(dataDir, 'audit.log'))).toString(8)).toBe('600');
  });
});
