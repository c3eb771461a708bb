// The server benches run against real processes and print figures; this starts each once at a tiny size so
// that a bench that no longer runs (a renamed setting, a changed log line, a route answering otherwise) fails
// here instead of when someone wants its figures. The figures themselves are not judged at this size.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('../../bench/server/', import.meta.url));

async function runBench(script: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [`${BENCH}${script}`], {
    env: { ...process.env, ...env },
    timeout: 110_000,
  });
  return stdout;
}

describe('server benches (tiny size)', () => {
  it('relays.mjs: signs with healthy relays and with a silent one, all answered 200, prints the ratio', async () => {
    const out = await runBench('relays.mjs', { BENCH_SIGNS: '6', BENCH_CLIENTS: '3' });
    expect(out).toMatch(/healthy relays\s+: median \d+ ms, p95 \d+ ms, slowest \d+ ms; answers \{"200":6\}/);
    expect(out).toMatch(/one silent relay\s+: median \d+ ms, .*answers \{"200":6\}/);
    expect(out).toMatch(/ratio of the medians: \d+\.\d\d× \(goal ≤ 2×\)/);
    expect(out).toContain('published_to named the healthy relay in 6 of 6 answers');
  });

  it('upload-memory.mjs: both upload routes with Markdown, PNG and PDF, every upload answered 200', async () => {
    const out = await runBench('upload-memory.mjs', { BENCH_PARALLEL: '3', BENCH_UPLOAD_MIB: '1' });
    for (const route of ['inspect', 'sign']) {
      for (const type of ['md', 'png', 'pdf']) {
        expect(out).toMatch(
          new RegExp(`${route} +${type} +3 × [\\d.]+ MB: idle [\\d.]+ MB, peak [\\d.]+ MB .*\\{"200":3\\}`),
        );
      }
    }
  });
});
