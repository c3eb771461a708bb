// The NIP-46 flood bench (bench/nip46-flood/run.mjs, issue 22) runs: once, at a tiny size, so that it does
// not rot between the times someone runs it for figures.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('../../bench/nip46-flood/run.mjs', import.meta.url));

describe('bench/nip46-flood', () => {
  it('runs at a tiny size and prints both figures side by side with their ratios', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BENCH], {
      env: { ...process.env, BENCH_PAGES: '10', BENCH_FLOOD: '200' },
      timeout: 110_000,
    });
    expect(stdout).toMatch(/signSite, 10 pages\s+[\d.]+ s\s+[\d.]+ s\s+[\d.]+×/);
    expect(stdout).toMatch(/HTTP probe, worst latency\s+\d+ ms\s+\d+ ms\s+[\d.]+×/);
    expect(stdout).toMatch(/flood: 200 stranger requests from 50 keys .* the bunker received 200,/);
    expect(stdout).toContain('replied to 0 strangers');
  });
});
