// The global setup of `real` and `slow`: what is expensive to start is started once per run and shared by
// the test files that only use it, and at the end the run checks that it left nothing running.
//
// - One Chromium (`launchServer`): each file connects and gets a context of its own (a fresh, empty
//   profile); see test/support/chromium.ts. Files that need a browser of their own (extensions, flags)
//   still launch one.
// - One bunker (`siegel-bunker start`, no key): each file that only signs through it creates a key of its
//   own (`useBunker()` in test/support/bunker-process.ts). The bunker's throttles count failures only (a
//   wrong token, a wrong passphrase) and those files fail none, so parallel files cannot trip them; the
//   tests of a bunker's own life start their own.
// - The run's id, which every process a test starts carries (test/setup/processes.ts): after the last
//   file, any process that still carries it is listed, killed, and fails the run.
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { type SharedBunker, startBunker } from '../support/bunker-process.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.js';
import { markedProcesses, stopProcesses } from '../support/process-group.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The value of `SIEGEL_TEST_RUN` in every process this run's tests start. */
    siegelRunId: string;
    /** The shared Chromium's WebSocket endpoint (playwright `connect`). */
    chromiumEndpoint: string;
    /** The shared bunker (no keys of its own; see `useBunker`). */
    sharedBunker: SharedBunker;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // scripts/test.mjs names the run, so that it can stop what an interrupted run left. The name is taken out
  // of the environment, so that a run a test starts (test/repo/test-projects.test.ts) gets its own.
  const runId = process.env.SIEGEL_TEST_RUN_ID || `${process.pid}-${randomBytes(6).toString('hex')}`;
  delete process.env.SIEGEL_TEST_RUN_ID;
  project.provide('siegelRunId', runId);
  const [browser, bunker] = await Promise.all([
    chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }),
    startBunker({ keys: [] }),
  ]);
  project.provide('chromiumEndpoint', browser.wsEndpoint());
  const { url, apiToken, adminToken, dataDir } = bunker;
  project.provide('sharedBunker', { url, apiToken, adminToken, dataDir });

  return async () => {
    await Promise.all([browser.close(), bunker.stop()]);
    await reportLeftovers(runId);
  };
}

/**
 * Fail the run if any process a test started is still running (each file's own group was stopped by then,
 * so this is an orphan that left its group, or a file that never finished), after killing it.
 */
async function reportLeftovers(runId: string): Promise<void> {
  let left = await markedProcesses(runId);
  // A group stopped at the very end of the last file may still be on its way out.
  for (let i = 0; i < 40 && left.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await markedProcesses(runId);
  }
  if (left.length === 0) return;
  await stopProcesses(left, 1_000);
  throw new Error(
    `the tests left ${left.length} process(es) running (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`,
  );
}
