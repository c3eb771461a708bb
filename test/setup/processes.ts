// Every process a test file starts, in `real` and `slow`, is stopped with its whole process group when the
// file ends, also when a test failed before its own `stop()` ran, and carries the run's mark so that the
// global teardown (test/setup/global.ts) can tell whether anything of the suite is still running.
//
// How: every `spawn`, `exec`, `execFile` and `fork` of Node builds a `ChildProcess` and calls its `spawn`
// method; wrapping that one method covers them all, whatever module the test imported them from. Each child
// starts in a process group of its own (`detached`, i.e. `setsid`), so that what it starts in turn (`npx`
// starting `siegel-bunker`, `pg_ctl` starting `postgres`) can be reached through the group after the
// leader is gone. Synchronous `spawnSync`/`execSync` calls end before they return and are left alone.
import { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect, inject } from 'vitest';
import { cpuSeconds, RUN_MARK, stopGroups } from '../support/process-group.js';

interface SpawnOptions {
  detached?: boolean;
  envPairs?: string[];
  args?: string[];
}

const runId = inject('siegelRunId');
// Children that inherit this environment (every `spawnSync` and `execSync` among them) carry the mark too.
process.env[RUN_MARK] = runId;
/** Process group id → the command that started it. */
const groups = new Map<number, string>();
/** `ChildProcess#spawn`: Node's internal method behind every asynchronous way to start a process. */
type SpawnMethod = (this: ChildProcess, options: SpawnOptions) => unknown;
const prototype = ChildProcess.prototype as unknown as { spawn: SpawnMethod };
const spawnChild = prototype.spawn;

prototype.spawn = function spawnInOwnGroup(options) {
  const mark = `${RUN_MARK}=${runId}`;
  const spawned = spawnChild.call(this, {
    ...options,
    detached: true,
    envPairs: [...(options.envPairs ?? []).filter((pair) => !pair.startsWith(`${RUN_MARK}=`)), mark],
  });
  if (this.pid !== undefined) groups.set(this.pid, (options.args ?? []).join(' ').slice(0, 200));
  return spawned;
};

/**
 * Where the CPU of a run goes, per file (`SIEGEL_TEST_CPU_LOG=FILE`): one JSON line per test file with its wall
 * time, its worker's CPU and the CPU of every child it started and reaped (the kernel's `cutime`/`cstime`, which
 * hold a child's own reaped children too). What a shared process does for the file (the run's Chromium and
 * bunker) is not in it. Each file of `real` and `slow` has a worker process of its own, so the figures count from
 * the worker's start (its boot and imports included).
 */
const CPU_LOG = process.env.SIEGEL_TEST_CPU_LOG;
afterAll(async () => {
  const left = await stopGroups([...groups.keys()]);
  if (left.length > 0)
    console.warn(
      `stopped ${left.length} process group(s) the test file left running:\n${left.map((pgid) => `  ${pgid} ${groups.get(pgid)}`).join('\n')}`,
    );
  groups.clear();
  if (CPU_LOG) {
    const cpu = cpuSeconds();
    const line = {
      file: relative(process.cwd(), expect.getState().testPath ?? '?'),
      pid: process.pid,
      wall: process.uptime(),
      worker: cpu?.own,
      children: cpu?.children,
    };
    appendFileSync(CPU_LOG, `${JSON.stringify(line)}\n`);
  }
}, 20_000);
