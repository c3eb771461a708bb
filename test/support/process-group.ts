import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The environment variable every process started by a test carries (test/setup/processes.ts), valued with
 * the run's id, so that the global teardown finds what the suite left running, orphans included.
 */
export const RUN_MARK = 'SIEGEL_TEST_RUN';

/** Whether any process of group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by another user (a PostgreSQL cluster run as `nobody`).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // gone meanwhile
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/**
 * SIGTERM every process group of `pgids` still alive, then SIGKILL what is left after `graceMs`. Resolves
 * with the groups that were still alive at the start (a process group's id is its leader's pid).
 */
export async function stopGroups(pgids: number[], graceMs = 5_000): Promise<number[]> {
  const alive = pgids.filter(groupAlive);
  for (const pgid of alive) signalGroup(pgid, 'SIGTERM');
  if (!(await until(() => !alive.some(groupAlive), graceMs))) {
    for (const pgid of alive.filter(groupAlive)) signalGroup(pgid, 'SIGKILL');
    await until(() => !alive.some(groupAlive), 2_000);
  }
  return alive;
}

/**
 * Stop `child` and everything it started: SIGTERM to its process group (every test child has one, see
 * test/setup/processes.ts), SIGKILL after `graceMs`; resolves once the group is gone.
 */
export async function stopProcessGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.pid === undefined) return;
  await stopGroups([child.pid], graceMs);
}

/** A process that carries the run's mark. */
export interface MarkedProcess {
  pid: number;
  command: string;
}

/** Every process on this machine whose environment carries `RUN_MARK=runId` (Linux `/proc`). */
export async function markedProcesses(runId: string): Promise<MarkedProcess[]> {
  const needle = `\0${RUN_MARK}=${runId}\0`;
  const found: MarkedProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = `\0${await readFile(`/proc/${entry}/environ`, 'latin1')}`;
      if (!environ.includes(needle)) continue;
      const command = (await readFile(`/proc/${entry}/cmdline`, 'latin1')).split('\0').join(' ').trim();
      found.push({ pid: Number(entry), command });
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Stop `processes` (as {@link markedProcesses} found them): their groups as {@link stopGroups} does, then
 * each one still alive on its own with SIGKILL (a process that left its group).
 */
export async function stopProcesses(processes: MarkedProcess[], graceMs: number): Promise<void> {
  await stopGroups(
    processes.map((p) => p.pid),
    graceMs,
  );
  for (const { pid } of processes) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * CPU seconds of this process (utime + stime) and of its children that ended and were waited for (cutime +
 * cstime, which hold their own reaped children too), from `/proc/self/stat`; undefined off Linux.
 */
export function cpuSeconds(): { own: number; children: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name, which is in parentheses and may hold spaces: 14–17 are the four times,
  // in clock ticks (100 a second on Linux).
  const [user = 0, system = 0, childUser = 0, childSystem = 0] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map((ticks) => Number(ticks) / 100);
  return { own: user + system, children: childUser + childSystem };
}
