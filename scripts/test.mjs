#!/usr/bin/env node
// `npm test` after build and typecheck: the three vitest projects by cost (vitest.config.ts), cheapest
// first, each in a run of its own, stopping at the first red one; prints each project's wall time.
//
//   node scripts/test.mjs [PROJECT…] [-- VITEST ARGS…]
//
// PROJECT is unit, real or slow (default: all three, in that order). Arguments after `--` go to every
// vitest run (a file filter, `--reporter dot`).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, markedProcesses, stopProcesses } from '../test/support/process-group.ts';

const PROJECTS = ['unit', 'real', 'slow'];
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Every Node process of the run — Vitest's workers, the bunkers, servers and CLIs the tests start, the
// generators' builds — keeps the code it compiled here (`NODE_COMPILE_CACHE`), so the next one that loads
// the same module does not compile it again. Where the environment names a cache, that one.
const COMPILE_CACHE = fileURLToPath(new URL('../node_modules/.cache/node-compile', import.meta.url));

const args = process.argv.slice(2);
const split = args.indexOf('--');
const named = split === -1 ? args : args.slice(0, split);
const passed = split === -1 ? [] : args.slice(split + 1);
for (const name of named) {
  if (!PROJECTS.includes(name)) {
    console.error(`scripts/test.mjs: unknown project \`${name}\` (one of ${PROJECTS.join(', ')})`);
    process.exit(2);
  }
}
const chosen = named.length > 0 ? PROJECTS.filter((p) => named.includes(p)) : PROJECTS;

let interrupted = false;

/**
 * Run one project; resolves with its exit code (a signal counts as 1). The run's id (`SIEGEL_TEST_RUN_ID`,
 * test/setup/global.ts) marks every process its tests start; whatever of them is still running when vitest
 * has exited is stopped here. A run that ends normally has stopped them itself (its global teardown fails
 * the run for any it finds), but an interrupted one — Ctrl-C, a SIGTERM — ends vitest's workers before
 * their files stop what they started, each in a process group of its own (test/setup/processes.ts).
 */
function runProject(name) {
  const runId = `${process.pid}-${name}-${randomBytes(6).toString('hex')}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--project', name, ...passed], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, SIEGEL_TEST_RUN_ID: runId },
    });
    // Ctrl-C reaches vitest through the terminal (this script waits for it to end); a SIGTERM or SIGINT sent
    // to this script alone is passed on.
    const forward = (signal) => {
      interrupted = true;
      child.kill(signal);
    };
    process.on('SIGTERM', forward);
    process.on('SIGINT', forward);
    child.once('exit', async (code, signal) => {
      process.off('SIGTERM', forward);
      process.off('SIGINT', forward);
      const left = await markedProcesses(runId);
      if (left.length > 0) {
        await stopProcesses(left, 2_000);
        console.log(
          `\nstopped ${left.length} process(es) the \`${name}\` run left:\n${left.map((p) => `  ${p.pid} ${p.command.slice(0, 160)}`).join('\n')}`,
        );
      }
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** CPU seconds of every process of this run that has ended and been waited for: vitest, its workers and
 * what they started (undefined off Linux). A project's CPU beside its wall time says whether it waited or
 * computed (docs/testing.md). */
const childCpuSeconds = () => cpuSeconds()?.children;

const times = [];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
let failed;
for (const name of chosen) {
  const started = Date.now();
  const cpuBefore = childCpuSeconds();
  const code = await runProject(name);
  const cpuAfter = childCpuSeconds();
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? ''
      : `, ${(cpuAfter - cpuBefore).toFixed(0)} s of CPU`;
  times.push(`${name} ${seconds(Date.now() - started)}${cpu}${code === 0 ? '' : ' (red)'}`);
  console.log(
    `\n── test:${name}: ${code === 0 ? 'green' : 'RED'} in ${seconds(Date.now() - started)}${cpu}\n`,
  );
  if (code !== 0 || interrupted) {
    failed = name;
    break;
  }
}
console.log(`wall time per project: ${times.join(' · ')}`);
if (failed) {
  const skipped = chosen.slice(chosen.indexOf(failed) + 1);
  if (skipped.length > 0) console.log(`not run after the red \`${failed}\`: ${skipped.join(', ')}`);
  process.exit(1);
}
