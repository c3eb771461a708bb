import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DropLog } from '../src/nip46/drop-log.js';
import { MAX_FUTURE_SECONDS, NIP46_SEEN_FILE, ReplayGuard } from '../src/nip46/replay-guard.js';
import { StrangerBudget } from '../src/nip46/stranger-budget.js';

describe('StrangerBudget', () => {
  it('gives each author its burst, all authors together the global burst, and refills over time', () => {
    let clock = 0;
    const budget = new StrangerBudget(
      { perPubkey: { burst: 2, perSecond: 1 }, global: { burst: 5, perSecond: 2 }, perUri: 1 },
      () => clock,
    );
    // The URI's own allowance first (1), then the global bucket (5).
    expect([budget.take('a', 'u'), budget.take('a', 'u'), budget.take('a', 'u')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([budget.take('b', 'u'), budget.take('b', 'u'), budget.take('c', 'u')]).toEqual([true, true, true]);
    expect(budget.take('d', 'u')).toBe(true);
    // Global burst spent: a fresh author gets nothing at that URI, but a fresh URI has its allowance.
    expect(budget.take('e', 'u')).toBe(false);
    expect(budget.take('e', 'fresh')).toBe(true);
    expect(budget.take('f', 'fresh')).toBe(false);
    clock += 1000;
    expect([budget.take('d', 'u'), budget.take('d', 'u'), budget.take('d', 'u')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('refuses a budget that would drop everything or nothing', () => {
    expect(
      () =>
        new StrangerBudget({
          perPubkey: { burst: 0, perSecond: 1 },
          global: { burst: 1, perSecond: 1 },
          perUri: 1,
        }),
    ).toThrow(/burst ≥ 1/);
  });
});

describe('DropLog (issue 22, L9: a flood of drops is not a flood of log lines)', () => {
  it('writes at most one summary line per interval, with the counts by reason', () => {
    let clock = 0;
    const lines: string[] = [];
    const log = new DropLog({ info() {}, warn: (m) => lines.push(m), error() {} }, 60_000, () => clock);
    for (let i = 0; i < 1000; i++) log.count('stranger');
    for (let i = 0; i < 20; i++) log.count('overBudget');
    expect(lines).toEqual([
      'NIP-46: dropped 1 event in the last 1 s: 1 from a stranger to a connection (never answerable; not checked)',
    ]);
    clock += 30_000;
    log.flush();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^NIP-46: dropped 1019 events in the last 30 s: 999 from a stranger.*; 20 over the strangers' budget/,
    );
    log.flush();
    expect(lines).toHaveLength(2);
  });
});

describe('ReplayGuard (issue 22, L3)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'siegel-replay-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('remembers handled ids across a reopen, drops old ones from the file, refuses dates far ahead', async () => {
    let clock = 2_000_000_000_000;
    const now = () => clock;
    const guard = await ReplayGuard.open(dataDir, now);
    const seconds = clock / 1000;
    expect(guard.fresh(seconds + MAX_FUTURE_SECONDS)).toBe(true);
    expect(guard.fresh(seconds + MAX_FUTURE_SECONDS + 1)).toBe(false);
    expect(guard.fresh(seconds - 301)).toBe(false);
    await guard.remember('a'.repeat(64), seconds);
    await guard.close();

    const again = await ReplayGuard.open(dataDir, now);
    expect(again.seen('a'.repeat(64))).toBe(true);
    expect(again.seen('b'.repeat(64))).toBe(false);
    await again.close();

    clock += 3_600_000;
    const later = await ReplayGuard.open(dataDir, now);
    expect(later.seen('a'.repeat(64))).toBe(false);
    await later.close();
    expect(await readFile(join(dataDir, NIP46_SEEN_FILE), 'utf8')).toBe('');
  });
});
