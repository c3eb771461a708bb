// Every bench under bench/ runs against real processes and prints figures; nobody runs them between the times
// someone wants figures, so they rot (issue 24: `npm run bench:nip46` failed at start, unnoticed). This starts
// each bench once at a tiny size: a bench that crashes, exits non-zero or no longer prints its figures fails
// here. The figures themselves are not judged at this size. A new script under bench/ must be listed below —
// as a bench with its tiny size, or as a helper the benches use — or the first test fails.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

// Timeouts (docs/testing.md): each bench once at a tiny size: 34 s alone for the slowest
vi.setConfig({ testTimeout: 180_000 });

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));

/** Each bench script with the environment that makes it tiny, and lines its output must contain. */
const BENCHES: Record<string, { env: Record<string, string>; prints: RegExp[] }> = {
  'bunker/run.mjs': {
    env: { BENCH_EVENTS: '100', BENCH_BATCH: '50' },
    prints: [
      /nostr-tools finalizeEvent, in process \(pure JS\)\s+\d+ events\/s/,
      /siegel-bunker over HTTP, batches of 50 \(\w+\)\s+\d+ events\/s/,
      /ratio HTTP \/ finalizeEvent: \d+\.\d\d×/,
    ],
  },
  'nip46/run.mjs': {
    env: { BENCH_PAGES: '5' },
    prints: [
      /HTTP bunker\s+[\d.]+ s\s+\d+ pages\/s/,
      // One per page and one for the site manifest.
      /NIP-46 \(relay\)\s+[\d.]+ s\s+\d+ pages\/s\s+\(6 sign_event requests/,
      /NIP-46 takes [\d.]+× the HTTP bunker's time/,
    ],
  },
  'nip46-flood/run.mjs': {
    env: { BENCH_PAGES: '10', BENCH_FLOOD: '200' },
    prints: [
      /signSite, 10 pages\s+[\d.]+ s\s+[\d.]+ s\s+[\d.]+×/,
      /HTTP probe, worst latency\s+\d+ ms\s+\d+ ms\s+[\d.]+×/,
      /flood: 200 stranger requests from 50 keys .* the bunker received 200,/,
      /replied to 0 strangers/,
    ],
  },
  'publish/run.mjs': {
    env: { BENCH_EVENTS: '20', BENCH_DELAYED_EVENTS: '10', BENCH_SILENT_PAGES: '20' },
    prints: [
      /20 events to one loopback relay/,
      /10 events through a proxy adding 20 ms each way/,
      /20 pages, one silent relay vs none/,
      // The 20 pages' events and the site manifest's.
      /re-run, nothing to sign, 21 events due: no relay [\d.]+ s, one silent relay [\d.]+ s/,
    ],
  },
  'scale-out/run.mjs': {
    // With DATABASE_URL and S3_BUCKET empty the bench starts its own PostgreSQL cluster and s3rver, with the
    // tests' own helpers (see bench/scale-out/stores.mjs).
    env: {
      BENCH_SECONDS: '0.5',
      BENCH_CONCURRENCY: '4',
      BENCH_RECORDS: '4',
      BENCH_SIGN_CONCURRENCY: '2',
      DATABASE_URL: '',
      S3_BUCKET: '',
    },
    prints: [
      /verify: 4 records \+ 1 unknown hashes/,
      ...['SQLite \\+ files', 'PostgreSQL \\+ S3', 'PostgreSQL \\+ files', 'SQLite \\+ S3'].map(
        (stores) =>
          new RegExp(
            `GET /api/verify ${stores} +: +\\d+ req/s  answers \\{"200":\\d+,"404":\\d+\\}; CPU server \\d+%, PostgreSQL \\d+%, s3rver \\d+%`,
          ),
      ),
      /ratio PostgreSQL \/ SQLite: \d+\.\d\d×/,
      /1 instance :\s+[\d.]+ signs\/s \(\d+ signs\); CPU server A \d+%, server B \d+%, bunker \d+%, PostgreSQL \d+%, s3rver \d+%/,
      /2 instances:\s+[\d.]+ signs\/s/,
      /ratio 2 instances \/ 1: \d+\.\d\d×/,
    ],
  },
  'server/run.mjs': {
    env: { BENCH_SECONDS: '0.5', BENCH_CONCURRENCY: '4', BENCH_FILE_MB: '1' },
    prints: [
      /GET \/api\/verify\?hash=\s+:\s+\d+ req\/s/,
      /ratio: \d+\.\d\d×/,
      /signing 1\.0 MB PNG #3: idle RSS/,
    ],
  },
  'server/relays.mjs': {
    env: { BENCH_SIGNS: '6', BENCH_CLIENTS: '3' },
    prints: [
      /healthy relays\s+: median \d+ ms, p95 \d+ ms, slowest \d+ ms; answers \{"200":6\}/,
      /one silent relay\s+: median \d+ ms, .*answers \{"200":6\}/,
      /ratio of the medians: \d+\.\d\d× \(goal ≤ 2×\)/,
      /published_to named the healthy relay in 6 of 6 answers/,
    ],
  },
  'server/hostile-uploads.mjs': {
    env: { BENCH_IDLE_SECONDS: '0.3', BENCH_BURST_FILES: '3' },
    prints: [
      /60000 objects lacking endstream → inspect: 422 in \d+ ms/,
      /burst: 6 uploads of 3 files at once, answered in [\d.]+ s/,
      ...['idle', 'during the reproductions', 'during the burst'].map(
        (phase) => new RegExp(`verify ${phase} +worst +\\d+ ms \\([\\d.]+× idle\\), mean [\\d.]+ ms`),
      ),
      /goals: each reproduction ≤ 2000 ms \((met|missed): slowest \d+ ms\), verify worst ≤ 500 ms/,
    ],
  },
  'server/upload-memory.mjs': {
    env: { BENCH_PARALLEL: '3', BENCH_UPLOAD_MIB: '1' },
    prints: ['inspect', 'sign'].flatMap((route) =>
      ['md', 'png', 'pdf'].map(
        (type) =>
          new RegExp(`${route} +${type} +3 × [\\d.]+ MB: idle [\\d.]+ MB, peak [\\d.]+ MB .*\\{"200":3\\}`),
      ),
    ),
  },
  'server/download-memory.mjs': {
    env: { BENCH_PARALLEL: '4', BENCH_FILE_MIB: '1' },
    prints: [
      /download 4 × [\d.]+ MB: idle [\d.]+ MB, peak [\d.]+ MB \(goal < 500 MB: (met|NOT met)\), after [\d.]+ MB; .*\{"200":4\}; 4 of 4 bodies are the file/,
      /verify meanwhile: worst \d+ ms \(goal < 500 ms: (met|NOT met)\), [\d.]+ s into the downloads; mean [\d.]+ ms over \d+ requests \{"200":\d+\}/,
    ],
  },
  'extension/run.mjs': {
    env: { BENCH_RUNS: '1', BENCH_LOADS: '2' },
    prints: [
      /valid [\d.]+ KB page, loopback relay: load → final state median \d+ ms, slowest \d+ ms over 1 runs \(goal ≤ 150 ms: (met|missed)\)/,
      /page without a block, CPU per load \(median of 1 rounds of 2\): with the extension [\d.]+ ms, without [\d.]+ ms; extra -?[\d.]+ ms, ratio [\d.]+×/,
      /the floor, an extension whose content script is one statement: [\d.]+ ms, extra -?[\d.]+ ms; the extension over it: -?[\d.]+ ms/,
    ],
  },
  'verify-hostile/run.mjs': {
    env: { BENCH_RUNS: '1' },
    prints: [
      ...['a plain page', 'an endless body', 'a gzip bomb'].map(
        (label) =>
          new RegExp(
            `${label} +median +\\d+ MB, largest +\\d+ MB, [\\d.]+× the plain page; the server wrote [\\d.]+ MiB`,
          ),
      ),
      /goal: every run under 300 MB \((met|missed): largest \d+ MB\)/,
    ],
  },
  'sign-site/run.mjs': {
    env: { BENCH_PAGES: '20' },
    prints: [
      /^parse +[\d.]+ s/m,
      /^cold +[\d.]+ s +[\d.]+× parse +\d+ MB peak RSS .*\{"signed":20,"unchanged":0,"skipped":0,"failed":0,"blockChecks":\{"proven":20,"readBack":0\}\}; cache file/m,
      /^warm +[\d.]+ s .*× I\/O floor.*\{"signed":0,"unchanged":20,.*"blockChecks":\{"proven":0,"readBack":0\}/m,
      /^one +[\d.]+ s .*\{"signed":1,"unchanged":19,.*"blockChecks":\{"proven":1,"readBack":0\}/m,
      /^manifest cold +[\d.]+ s +[\d.]+× the run +1 event\(s\) signed, layout inline, \d+ files: event \d+ bytes$/m,
      /^manifest warm +[\d.]+ s .* 0 event\(s\) signed, layout inline/m,
      /^manifest one +[\d.]+ s .* 1 event\(s\) signed, layout inline/m,
      /^writes +[\d.]+ s .*pages and 6 assets/m,
      /^verify +[\d.]+ s +[\d.]+× parse +\d+ MB peak RSS .*20 valid, 0 invalid/m,
      // Where the time goes, from each phase's CPU profile: a cold run and a verify parse and check pages.
      ...['cold', 'warm', 'one', 'verify'].map(
        (phase) => new RegExp(`^where ${phase} +[\\d.]+ s CPU on \\d+ thread\\(s\\): \\S+ \\d+%`, 'm'),
      ),
      ...['cold', 'verify'].map(
        (phase) => new RegExp(`^where ${phase} .*(?=.*\\bparse \\d+%)(?=.*\\bchecks \\d+%)`, 'm'),
      ),
    ],
  },
  'sign-site/huge-page.mjs': {
    env: { BENCH_MB: '0.3' },
    prints: [/0\.3 MB page: sign [\d.]+ s, peak \d+ MB .*; verify [\d.]+ s, peak \d+ MB/],
  },
};

/** Scripts under bench/ that are not benches themselves: what the benches import or start. */
const HELPERS = [
  'publish/silent-relay.mjs',
  'scale-out/stores.mjs',
  'server/bare-server.mjs',
  'server/processes.mjs',
  'sign-site/generate-site.mjs',
  'sign-site/measure.mjs',
  'sign-site/peak-rss.mjs',
  'sign-site/profile-phases.mjs',
  'sign-site/report-peak-rss.mjs',
];

describe('benches (tiny size)', () => {
  it('every script under bench/ is a bench listed here or a helper', async () => {
    const scripts = (await readdir(BENCH, { recursive: true }))
      .map((path) => path.split('\\').join('/'))
      .filter((path) => /\.(?:mjs|js|ts)$/.test(path) && !path.endsWith('.d.mts'))
      .sort();
    expect(scripts).toEqual([...Object.keys(BENCHES), ...HELPERS].sort());
  });

  for (const [script, { env, prints }] of Object.entries(BENCHES)) {
    it(`${script} runs and prints its figures`, async () => {
      // execFile rejects on a non-zero exit (a crash, an unhandled rejection) and on the time limit.
      const { stdout } = await promisify(execFile)(process.execPath, [`${BENCH}${script}`], {
        env: { ...process.env, ...env },
        timeout: 110_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      for (const line of prints) expect(stdout).toMatch(line);
    });
  }
});
