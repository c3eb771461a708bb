import { backoffDelay } from '@siegel/core/relay';
import { BunkerError } from './errors.js';

/** Options of {@link Throttle}. */
export interface ThrottleOptions {
  /** The 429 message for `key`, given the wait in whole seconds (at least 1). */
  message: (key: string, seconds: number) => string;
  /** Failures (since the count was last cleared or forgotten) that cost no wait. Default: `0`. */
  freeFailures?: number;
  /** The wait after the first failure beyond the free ones; it doubles with each further one. Default: 500 ms. */
  baseMs?: number;
  /** The longest wait. Default: 60 s. */
  maxMs?: number;
  /** A count with no failure for this long starts again from zero. Default: 15 min. */
  forgetAfterMs?: number;
  /** The most keys tracked at once; past it the least recently failed is dropped. Default: `10000`. */
  maxTracked?: number;
  /** Clock, in milliseconds. Default: `Date.now`. */
  now?: () => number;
}

/** Defaults of {@link ThrottleOptions}. */
export const THROTTLE_DEFAULTS = {
  freeFailures: 0,
  baseMs: 500,
  maxMs: 60_000,
  forgetAfterMs: 15 * 60_000,
  maxTracked: 10_000,
} as const;

interface State {
  failures: number;
  /** When the last failure was recorded. */
  last: number;
  /** Until when the next attempt is refused. */
  until: number;
}

/**
 * Slows down guessing, one count per key (a key name for passphrases, a client address for tokens): after
 * `n` failures beyond the free ones, the key's next attempt is refused until `min(baseMs · 2^(n-1), maxMs)`
 * have passed. Refused attempts are not counted and do not extend the wait,
 * so the wait never exceeds `maxMs` after the last real attempt. A success clears the count, as does
 * `forgetAfterMs` without a failure; the state lives in memory only (a restart clears it).
 *
 * @example
 * ```ts
 * const throttle = new Throttle({ message: (name, s) => `Too many wrong passphrases: retry in ${s} s` });
 * throttle.check('default'); // throws while throttled
 * if (wrong) throttle.fail('default');
 * else throttle.succeed('default');
 * ```
 */
export class Throttle {
  readonly #options: Required<Omit<ThrottleOptions, 'now' | 'message'>>;
  readonly #message: ThrottleOptions['message'];
  readonly #now: () => number;
  /** In order of the last failure: the first entry is the one to drop when full. */
  readonly #state = new Map<string, State>();

  constructor(options: ThrottleOptions) {
    this.#options = {
      freeFailures: options.freeFailures ?? THROTTLE_DEFAULTS.freeFailures,
      baseMs: options.baseMs ?? THROTTLE_DEFAULTS.baseMs,
      maxMs: options.maxMs ?? THROTTLE_DEFAULTS.maxMs,
      forgetAfterMs: options.forgetAfterMs ?? THROTTLE_DEFAULTS.forgetAfterMs,
      maxTracked: options.maxTracked ?? THROTTLE_DEFAULTS.maxTracked,
    };
    this.#message = options.message;
    this.#now = options.now ?? Date.now;
  }

  /** @throws {BunkerError} `too_many_attempts` with `retryAfter` (seconds) while `key` is throttled. */
  check(key: string): void {
    const state = this.#state.get(key);
    const wait = state ? state.until - this.#now() : 0;
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new BunkerError('too_many_attempts', this.#message(key, seconds), { retryAfter: seconds });
    }
  }

  /** Record a failed attempt. */
  fail(key: string): void {
    const now = this.#now();
    const previous = this.#state.get(key);
    const failures =
      previous && now - previous.last < this.#options.forgetAfterMs ? previous.failures + 1 : 1;
    const { freeFailures, baseMs, maxMs, maxTracked } = this.#options;
    const delay =
      failures <= freeFailures ? 0 : backoffDelay(failures - freeFailures - 1, { first: baseMs, max: maxMs });
    // Re-inserted, so that the map stays ordered by the last failure.
    this.#state.delete(key);
    this.#state.set(key, { failures, last: now, until: now + delay });
    if (this.#state.size > maxTracked) this.#forget(now);
  }

  /** Clear the count after a success. */
  succeed(key: string): void {
    this.#state.delete(key);
  }

  /** Drop counts that are forgotten anyway, then the oldest while still too many. */
  #forget(now: number): void {
    for (const [key, state] of this.#state) {
      if (this.#state.size <= this.#options.maxTracked) return;
      if (now - state.last >= this.#options.forgetAfterMs || state.until <= now) this.#state.delete(key);
    }
    for (const key of this.#state.keys()) {
      if (this.#state.size <= this.#options.maxTracked) return;
      this.#state.delete(key);
    }
  }
}
