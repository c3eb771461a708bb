import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects by cost, not by folder (docs/testing.md). `npm test` runs them in this order and stops at
// the first red one: a broken pure function shows in the first minute, not after the browsers.
// (A plain `vitest run` runs them in the same order too: `sequence.groupOrder`.)
//
// - `unit`: pure code in every package. No process, no socket, no browser, no external tool: the setup
//   file `test/setup/unit-guard.ts` makes `child_process`, client sockets and `listen` throw here.
// - `real`: real processes (bunker, server, relay, PostgreSQL, S3), the writers' own tools, real builds of
//   `examples/`, one shared Chromium. Mostly waiting on other processes, so several files run at once.
// - `slow`: registry installs, every bench at tiny size, the Astro version matrix, the html5lib corpora in
//   two browsers, the example apps.
//
// Timeouts: each project's default suits its usual file; a file that needs more says so at its top with
// `vi.setConfig` (sized to what that file does), so a hung test costs seconds, not minutes.

/** Test files of `unit` that are not under a package's `test/` (they read the repository, no process). */
const UNIT_REPO = [
  'test/repo/architecture.test.ts',
  'test/repo/docs.test.ts',
  'test/repo/one-home.test.ts',
  'test/repo/one-relay-client.test.ts',
];

/** Test files in package folders that start processes or open sockets: they belong to `real`. */
const REAL_IN_PACKAGES = [
  'packages/client/test/dist.test.ts',
  'packages/client/test/embed-images.test.ts',
  'packages/client/test/embed-pdf.test.ts',
  'packages/core/test/bunker-url-check.test.ts',
  'packages/core/test/bunker-url-source.test.ts',
  'packages/core/test/check-events.test.ts',
  'packages/core/test/cli-evidence.test.ts',
  'packages/core/test/cli.test.ts',
  'packages/core/test/exports.test.ts',
  'packages/core/test/nip05.test.ts',
  'packages/core/test/nothing-signed.test.ts',
  'packages/core/test/page-at-url.test.ts',
  'packages/core/test/relays.test.ts',
  'packages/core/test/signer.test.ts',
  'packages/core/test/site-client.test.ts',
  'packages/core/test/verify-site.test.ts',
  'server/test/postgres-record-store.test.ts',
  'server/test/s3-storage.test.ts',
];

/** What is slow by nature, wherever it lives. */
const SLOW = [
  'test/registry/**/*.test.ts',
  'test/repo/benches.test.ts',
  'test/integrations/astro-versions.test.ts',
  'test/integrations/real-generators.test.ts',
  'test/page-hash/html5lib-signing-*.test.ts',
  'test/page-hash/hidings-chromium.test.ts',
  'test/examples/**/*.test.ts',
  'test/integrations/demo.test.ts',
];

const PACKAGE_TESTS = ['packages/*/test/**/*.test.ts', 'server/test/**/*.test.ts'];

/**
 * Files of `real` and `slow` at once: one per core (at least 2). With 4 at once on 2 cores the run was
 * CPU-bound (30 min of CPU in 19 min) and tests with real-time budgets failed (a relay taking 658 of
 * 1 000 events in 5 s, a NIP-46 publish timing out). `SIEGEL_TEST_FILES` overrides
 * (e.g. 1 to debug a race).
 */
const PARALLEL_FILES = Number(process.env.SIEGEL_TEST_FILES) || Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          sequence: { groupOrder: 0 },
          include: [...PACKAGE_TESTS, ...UNIT_REPO],
          exclude: ['**/node_modules/**', ...REAL_IN_PACKAGES],
          setupFiles: ['test/setup/unit-guard.ts'],
          // Threads start faster than processes, and pure code needs no process of its own. Files share
          // their worker's modules (`isolate: false`): importing the packages again for each of 90 files was
          // half the project's CPU (measured: 151 s of CPU isolated, 74 s shared, for the same 2 896 tests).
          // The setup file switches off what a file may leave on (fake timers, spies, stubs).
          pool: 'threads',
          isolate: false,
          maxWorkers: availableParallelism(),
          testTimeout: 10_000,
          hookTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'real',
          sequence: { groupOrder: 1 },
          include: ['test/**/*.test.ts', ...REAL_IN_PACKAGES],
          exclude: ['**/node_modules/**', ...UNIT_REPO, ...SLOW],
          globalSetup: ['test/setup/global.ts'],
          setupFiles: ['test/setup/processes.ts'],
          maxWorkers: PARALLEL_FILES,
          // A fresh worker process per file (`isolate`, the default). Shared workers saved about a minute of
          // 19, but a clean-clone run then failed a VitePress rebuild (one page signed again): a file could
          // see what another left in its process (docs/testing.md).
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'slow',
          sequence: { groupOrder: 2 },
          include: SLOW,
          exclude: ['**/node_modules/**'],
          globalSetup: ['test/setup/global.ts'],
          setupFiles: ['test/setup/processes.ts'],
          // One file per core, as `real`. One more was tried (the registry file waits on the network much of
          // its time): the project took 469.5 s against 440.0 s, since the registry's installs and builds
          // need the cores too (docs/testing.md).
          maxWorkers: PARALLEL_FILES,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
