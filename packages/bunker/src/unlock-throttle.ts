import { BunkerError } from './errors.js';

/** Delay after the first failed unlock; it doubles with each further failure. */
export const THROTTLE_BASE_MS = 500;
/** The longest delay between two unlock attempts of one key. */
export const THROTTLE_MAX_MS = 60_000;

/**
 * Slows down passphrase guessing: after `n` failed unlocks of a key, its next attempt is refused until
 * `min(500 ms · 2^(n-1), 60 s)` have passed. A success clears the count.
 */
export class UnlockThrottle {
  readonly #now: () => number;
  readonly #state = new Map<string, { failures: number; until: number }>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** @throws {BunkerError} `too_many_attempts` with `retryAfter` while the key is throttled. */
  check(name: string): void {
    const state = this.#state.get(name);
    const wait = state ? state.until - this.#now() : 0;
    if (wait > 0) {
      throw new BunkerError(
        'too_many_attempts',
        `Too many wrong passphrases for key \`${name}\`: retry in ${Math.ceil(wait / 1000)} s`,
        { retryAfter: Math.ceil(wait / 1000) },
      );
    }
  }

  /** Record a failed attempt. */
  fail(name: string): void {
    const failures = (this.#state.get(name)?.failures ?? 0) + 1;
    const delay = Math.min(THROTTLE_BASE_MS * 2 ** (failures - 1), THROTTLE_MAX_MS);
    this.#state.set(name, { failures, until: this.#now() + delay });
  }

  /** Clear the count after a success. */
  succeed(name: string): void {
    this.#state.delete(name);
  }
}
