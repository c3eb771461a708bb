import { describe, expect, it } from 'vitest';
import { addressGroup } from '../src/client-address.js';
import { Throttle } from '../src/throttle.js';
import { createTokenThrottle } from '../src/token-auth.js';

function retryAfter(throttle: Throttle, key: string): number | undefined {
  try {
    throttle.check(key);
    return undefined;
  } catch (error) {
    return (error as { retryAfter?: number }).retryAfter;
  }
}

describe('Throttle', () => {
  it('lets the free failures through, then doubles the wait up to the cap, for that key only', () => {
    let now = 0;
    const throttle = createTokenThrottle(() => now);
    for (let i = 0; i < 5; i++) {
      throttle.fail('a');
      expect(retryAfter(throttle, 'a')).toBeUndefined();
    }
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      throttle.fail('a');
      waits.push(retryAfter(throttle, 'a') ?? 0);
      now += 60_000;
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
    expect(retryAfter(throttle, 'b')).toBeUndefined();
  });

  it('never makes a key wait longer than the cap after its last failure: refused attempts do not count', () => {
    let now = 0;
    const throttle = createTokenThrottle(() => now);
    for (let i = 0; i < 30; i++) throttle.fail('a');
    // Hammering while throttled changes nothing.
    for (let i = 0; i < 1000; i++) {
      expect(retryAfter(throttle, 'a')).toBeGreaterThan(0);
      now += 50;
    }
    now = 60_000;
    expect(retryAfter(throttle, 'a')).toBeUndefined();
  });

  it('forgets a count after 15 minutes without a failure, and on success', () => {
    let now = 0;
    const throttle = new Throttle({ now: () => now, message: () => 'wait' });
    throttle.fail('k');
    throttle.fail('k');
    expect(retryAfter(throttle, 'k')).toBe(1);
    now += 15 * 60_000;
    throttle.fail('k');
    expect(retryAfter(throttle, 'k')).toBe(1); // 0.5 s again: a first failure
    throttle.succeed('k');
    expect(retryAfter(throttle, 'k')).toBeUndefined();
  });

  it('tracks a bounded number of keys, dropping the oldest', () => {
    let now = 0;
    // Every key waits 10 minutes: only dropping it can end a wait this early.
    const throttle = new Throttle({
      now: () => now,
      maxTracked: 100,
      baseMs: 10 * 60_000,
      maxMs: 10 * 60_000,
      message: () => '',
    });
    for (let i = 0; i < 10_000; i++) {
      throttle.fail(`k${i}`);
      now += 1;
    }
    expect(retryAfter(throttle, 'k9999')).toBe(600);
    expect(retryAfter(throttle, 'k9900')).toBe(600);
    expect(retryAfter(throttle, 'k9899')).toBeUndefined();
    expect(retryAfter(throttle, 'k0')).toBeUndefined();
  });

  it('says how long to wait, in the message and as retryAfter', () => {
    const throttle = createTokenThrottle(() => 0);
    for (let i = 0; i < 6; i++) throttle.fail('127.0.0.9');
    expect(() => throttle.check('127.0.0.9')).toThrow(
      expect.objectContaining({
        code: 'too_many_attempts',
        status: 429,
        retryAfter: 1,
        message: 'Too many wrong tokens from `127.0.0.9`: retry in 1 s (Retry-After)',
      }),
    );
  });
});

describe('addressGroup', () => {
  it('groups IPv4 by address (also IPv4-mapped) and IPv6 by /64', () => {
    expect(addressGroup('127.0.0.1')).toBe('127.0.0.1');
    expect(addressGroup('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressGroup('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressGroup(undefined)).toBe('unknown');
  });
});
