// Issue 39, item 2: the README's first command on a fresh clone (`npm run demo`, which installs first) reads as
// progress, not failure. `npm ci` under a Node older than the packages want prints one `EBADENGINE` block per
// package (53 blocks under Debian's Node 20) and then nothing for minutes. scripts/install.mjs says what it
// does and how long it takes, and leaves out exactly those blocks — here on a real `npm ci` of a small
// project whose one package wants a Node no machine has, so the warnings come whatever Node runs the test.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from './support/example-project.js';

// Timeouts (docs/testing.md): three npm runs, offline, on a local package: 3–10 s each on a shared machine
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const run = promisify(execFile);
let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'siegel-install-'));
  await mkdir(join(project, 'needs-new-node'));
  await writeFile(
    join(project, 'needs-new-node', 'package.json'),
    JSON.stringify({ name: 'needs-new-node', version: '1.0.0', engines: { node: '>=99' } }),
  );
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'fresh-clone',
      version: '1.0.0',
      private: true,
      dependencies: { 'needs-new-node': 'file:./needs-new-node' },
    }),
  );
  await run('npm', ['install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'], {
    cwd: project,
  });
});

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('scripts/install.mjs', () => {
  it('npm ci alone prints the engine warning block (what the script leaves out)', async () => {
    const { stdout, stderr } = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: project });
    expect(`${stdout}${stderr}`).toMatch(/^npm warn EBADENGINE Unsupported engine \{$/m);
  });

  it('says what it does, installs, and leaves out exactly the engine warnings, saying why', async () => {
    await rm(join(project, 'node_modules'), { recursive: true, force: true });
    const script = `import { installDependencies } from ${JSON.stringify(join(REPO_ROOT, 'scripts/install.mjs'))};
await installDependencies(${JSON.stringify(project)}, (message) => console.log('[demo] ' + message));`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
    });
    const output = `${stdout}${stderr}`;
    expect(stdout.split('\n')[0]).toBe(
      '[demo] installing the dependencies (npm ci: about 3 minutes on a fresh clone, once)…',
    );
    expect(output).not.toContain('EBADENGINE');
    expect(output).toMatch(/^added 1 package in .+$/m);
    expect(output).toContain(
      "[demo] left out npm's engine warnings for 1 package(s): they are about this machine's Node",
    );
    expect(output).toMatch(/^\[demo\] installed in \d+ s$/m);
    const installed = JSON.parse(await readFile(join(project, 'node_modules/.package-lock.json'), 'utf8'));
    expect(Object.keys(installed.packages)).toContain('node_modules/needs-new-node');
  });
});
