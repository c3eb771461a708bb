import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/net/backoff.js';
import { retryDelayMs } from '../src/nostr/publish-outbox.js';

describe('backoffDelay (one formula for the outbox, the bunker link and pool, the server deliveries)', () => {
  it('doubles from `first` per attempt and stops at `max`', () => {
    const pool = { first: 1000, max: 30_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((attempt) => backoffDelay(attempt, pool))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('takes a negative or fractional attempt as its whole part, at least 0, and never answers NaN', () => {
    const bounds = { first: 250, max: 5000 };
    expect(backoffDelay(-3, bounds)).toBe(250);
    expect(backoffDelay(1.9, bounds)).toBe(500);
    expect(backoffDelay(5000, bounds)).toBe(5000);
    expect(backoffDelay(5000, { first: 0, max: Infinity })).toBe(0);
    expect(backoffDelay(Infinity, { first: 1, max: 60_000 })).toBe(60_000);
  });

  it('spreads a wait by `jitter` either way (the bunker link: 75 % to 125 %)', () => {
    const link = { first: 200, max: Infinity, jitter: 0.25 };
    expect(backoffDelay(1, { ...link, random: () => 0 })).toBe(300);
    expect(backoffDelay(1, { ...link, random: () => 0.5 })).toBe(400);
    expect(backoffDelay(1, { ...link, random: () => 0.999_999 })).toBeCloseTo(500, 3);
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(2, link);
      expect(delay).toBeGreaterThanOrEqual(600);
      expect(delay).toBeLessThan(1000);
    }
  });

  it("is the outbox's retry wait: 1 min after the first failure, doubled, at most 6 h", () => {
    expect(retryDelayMs(0)).toBe(60_000);
    expect(retryDelayMs(1)).toBe(60_000);
    expect(retryDelayMs(2)).toBe(120_000);
    expect(retryDelayMs(100)).toBe(6 * 60 * 60_000);
    expect(retryDelayMs(3, 30_000, 60 * 60_000)).toBe(120_000);
  });
});
