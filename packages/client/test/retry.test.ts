import { describe, expect, it } from 'vitest';
import { createClient, parseRetryAfter, RETRY_DEFAULTS, SiegelApiError } from '../src/index.js';
import { retryDelay, sleep } from '../src/retry.js';

describe('Retry-After and the retry wait', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
    for (const bad of [null, undefined, '', '-1', '1.5', 'soon', '3 s'])
      expect(parseRetryAfter(bad, now), String(bad)).toBeUndefined();
  });

  it('waits what the server asked, else the doubling default, and not past the cap', () => {
    expect(retryDelay(0, 2, RETRY_DEFAULTS)).toBe(2000);
    expect(retryDelay(0, undefined, RETRY_DEFAULTS)).toBe(1000);
    expect(retryDelay(2, undefined, RETRY_DEFAULTS)).toBe(4000);
    expect(retryDelay(0, 61, RETRY_DEFAULTS)).toBeUndefined();
    expect(retryDelay(0, 5, { ...RETRY_DEFAULTS, maxRetryDelayMs: 4999 })).toBeUndefined();
  });

  it('a wait rejects with the signal reason as soon as it aborts, and at once when already aborted', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await expect(sleep(60_000, AbortSignal.abort(new Error('mine')))).rejects.toThrow('mine');
  });
});

describe('createClient options', () => {
  it('refuses a missing or relative baseUrl, unknown options, bad numbers and a multi-line token', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /`baseUrl` must be an absolute URL/],
      [{ baseUrl: '/api' }, /absolute URL, got `\/api`/],
      [{ baseUrl: 'ftp://x' }, /http\(s\) URL/],
      [{ baseUrl: 'https://x', retry: 3 }, /Unknown option `retry`/],
      [{ baseUrl: 'https://x', retries: -1 }, /`retries` must be a whole number/],
      [{ baseUrl: 'https://x', maxRetryDelayMs: 1.5 }, /`maxRetryDelayMs` must be a whole number/],
      [{ baseUrl: 'https://x', token: 'a\nb' }, /`token` must be a string on one line/],
    ];
    for (const [options, message] of cases) {
      let caught: unknown;
      try {
        createClient(options as never);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(options)).toBeInstanceOf(SiegelApiError);
      expect((caught as SiegelApiError).code).toBe('INVALID_OPTIONS');
      expect((caught as SiegelApiError).message).toMatch(message);
    }
  });
});
