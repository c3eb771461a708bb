// Issue 33: the promises of the test projects (vitest.config.ts), each checked by running vitest on planted
// test files with the project's own setup:
// - `unit` starts no process and opens no socket: a planted `spawn`, `exec`, `listen` or `fetch` fails.
// - `real` and `slow` stop every process group a file started, and a run that leaves a process running
//   anyway (one that escaped its group) fails, naming it, and kills it; a run interrupted by Ctrl-C leaves
//   nothing either (scripts/test.mjs stops and lists it).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventually } from '../support/eventually.js';
import { groupAlive } from '../support/process-group.js';

vi.setConfig({ testTimeout: 60_000 });

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

interface Report {
  success: boolean;
  testResults: {
    name: string;
    assertionResults: { title: string; status: string; failureMessages: string[] }[];
  }[];
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * Write `files` (name → source) into a new directory with a vitest config of the named project of the
 * repository's config, its include replaced by the planted files. Resolves with the config's path.
 */
async function plant(project: 'unit' | 'real', files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'siegel-planted-'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [name, source] of Object.entries(files)) await writeFile(join(dir, name), source);
  await writeFile(
    join(dir, 'vitest.config.ts'),
    `import { resolve } from 'node:path';
import config from ${JSON.stringify(join(ROOT, 'vitest.config.ts'))};
const root = ${JSON.stringify(ROOT)};
const project = config.test.projects.find((p) => p.test.name === ${JSON.stringify(project)});
const absolute = (files) => (files ?? []).map((f) => resolve(root, f));
export default {
  test: {
    ...project.test,
    root: ${JSON.stringify(dir)},
    include: ['*.test.ts'],
    exclude: [],
    setupFiles: absolute(project.test.setupFiles),
    globalSetup: absolute(project.test.globalSetup),
  },
};
`,
  );
  return join(dir, 'vitest.config.ts');
}

/** The environment of a run the test starts: not this run's name (scripts/test.mjs), which is its own. */
function nestedEnv(): NodeJS.ProcessEnv {
  const { SIEGEL_TEST_RUN_ID: _thisRun, ...env } = process.env;
  return { ...env, CI: 'true' };
}

/** Run vitest on the planted `files` (see {@link plant}). Resolves with the JSON report, the output and the exit code. */
async function runPlanted(project: 'unit' | 'real', files: Record<string, string>) {
  const config = await plant(project, files);
  const report = join(dir as string, 'report.json');
  const result = await promisify(execFile)(
    process.execPath,
    [VITEST, 'run', '--config', config, '--reporter=json', `--outputFile=${report}`],
    { cwd: dir, env: nestedEnv(), timeout: 50_000 },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  const json = JSON.parse(await readFile(report, 'utf8')) as Report;
  const tests = Object.fromEntries(
    json.testResults.flatMap((file) =>
      file.assertionResults.map((a) => [
        a.title,
        { status: a.status, message: a.failureMessages.join('\n') },
      ]),
    ),
  );
  return { ...result, tests };
}

describe('the `unit` project', () => {
  it('fails a test that starts a process or opens a socket, and passes pure code', async () => {
    const { code, tests } = await runPlanted('unit', {
      'planted.test.ts': `
import { exec, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
it('spawn', () => { spawn('true'); });
it('exec', () => { exec('true'); });
it('listen', () => { createServer().listen(0); });
it('http listen', () => { createHttpServer().listen(0); });
it('connect', () => { connect(80, '127.0.0.1'); });
it('fetch', async () => { await fetch('http://127.0.0.1:9/'); });
it('pure', () => { expect([1, 2].map((n) => n * 2)).toEqual([2, 4]); });
it('worker thread', async () => {
  const worker = new Worker('require("node:worker_threads").parentPort.postMessage(42)', { eval: true });
  expect(await new Promise((resolve) => worker.once('message', resolve))).toBe(42);
});
`,
    });
    expect(code).not.toBe(0);
    for (const name of ['spawn', 'exec', 'listen', 'http listen', 'connect']) {
      expect(tests[name]?.status, name).toBe('failed');
      expect(tests[name]?.message, name).toMatch(/UnitGuardError: .* in the `unit` project/);
    }
    // undici wraps the socket's error: the guard's words are in its cause.
    expect(tests.fetch?.status).toBe('failed');
    expect(tests.pure?.status).toBe('passed');
    expect(tests['worker thread']?.status).toBe('passed');
  });
});

describe('the `real` project', () => {
  it("stops a file's process groups and fails a run that leaves a process running, naming and killing it", async () => {
    const { code, output, tests } = await runPlanted('real', {
      // Starts `sleep` in the test's group and never stops it: the file's end stops the group.
      'forgets.test.ts': `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
it('forgets a child', () => {
  const child = spawn('sleep', ['300']);
  writeFileSync('forgotten.pid', String(child.pid));
});
`,
      // Starts a \`sleep\` that leaves its group (setsid): only the run's end can find it, by its mark.
      'escapes.test.ts': `
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
it('lets a process escape', () => {
  const pid = execFileSync('sh', ['-c', 'setsid sleep 301 >/dev/null 2>&1 & echo $!']).toString().trim();
  writeFileSync('escaped.pid', pid);
});
`,
    });
    const forgotten = Number(await readFile(join(dir as string, 'forgotten.pid'), 'utf8'));
    const escaped = Number(await readFile(join(dir as string, 'escaped.pid'), 'utf8'));
    expect(tests['forgets a child']?.status).toBe('passed');
    expect(tests['lets a process escape']?.status).toBe('passed');
    expect(code).not.toBe(0);
    expect(output).toMatch(/the tests left 1 process\(es\) running \(now killed\):\n\s+\d+ sleep 301/);
    expect(output).not.toMatch(/sleep 300\b/);
    await eventually(() => !groupAlive(forgotten) && !groupAlive(escaped), 5_000);
  });

  it('scripts/test.mjs stops and lists what a run interrupted by Ctrl-C left running', async () => {
    const config = await plant('real', {
      // Starts `sleep` in a group of its own (as every child in `real`), then waits to be interrupted: its
      // file never ends, so nothing of the run stops the group.
      'interrupted.test.ts': `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
it('waits to be interrupted', async () => {
  const child = spawn('sleep', ['302']);
  // Beside this file: scripts/test.mjs runs vitest in the repository, not here.
  writeFileSync(new URL('interrupted.pid', import.meta.url), String(child.pid));
  await new Promise((resolve) => setTimeout(resolve, 50_000));
}, 55_000);
`,
    });
    const pidFile = join(dir as string, 'interrupted.pid');
    // In a group of its own, as `npm test` is in a terminal: Ctrl-C signals the whole foreground group.
    const run = spawn(process.execPath, [join(ROOT, 'scripts/test.mjs'), 'real', '--', '--config', config], {
      cwd: dir,
      env: nestedEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    run.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | string | null>((resolve) =>
      run.once('exit', (code, signal) => resolve(code ?? signal)),
    );
    await eventually(() => existsSync(pidFile), 40_000).catch((error: Error) => {
      throw new Error(`${error.message}: the planted test did not start; the run printed:\n${output}`);
    });
    const sleeping = Number(await readFile(pidFile, 'utf8'));
    expect(groupAlive(sleeping)).toBe(true);
    process.kill(-(run.pid as number), 'SIGINT');
    expect(await exited).toBe(1);
    expect(output).toMatch(/stopped 1 process\(es\) the `real` run left:\n\s+\d+ sleep 302/);
    await eventually(() => !groupAlive(sleeping), 5_000);
  });
});
