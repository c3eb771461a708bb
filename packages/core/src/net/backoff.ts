// The one backoff formula of Siegel's Node packages: the wait before a retry, doubled per failed attempt up
// to a bound, with optional jitter. Its users keep their own bounds: the outbox (1 min → 6 h), the bunker
// link of `HttpBunkerSigner` (200 ms, jittered), the bunker's NIP-46 relay pool (1 s → 30 s), the file
// server's relay deliveries (30 s → 1 h) and its change feed. `@siegel/client` keeps its own copy on
// purpose: it has no dependency. No Node module here.

/** Options of {@link backoffDelay}. */
export interface BackoffOptions {
  /** The wait before the first retry (`attempt` 0), in ms. */
  first: number;
  /** The longest wait, in ms (before jitter). */
  max: number;
  /**
   * Spread each wait by up to this share either way (0.25: 75 % to 125 %), so that clients that failed
   * together do not come back together. Default 0.
   */
  jitter?: number;
  /** A number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

/**
 * The wait before retry number `attempt` (0 for the first): `first`, doubled per attempt, at most `max`,
 * then spread by `jitter`. A negative or fractional `attempt` counts as its whole part, at least 0.
 *
 * @example
 * ```ts
 * backoffDelay(0, { first: 1000, max: 30_000 }); // 1000
 * backoffDelay(3, { first: 1000, max: 30_000 }); // 8000
 * backoffDelay(9, { first: 1000, max: 30_000 }); // 30000
 * backoffDelay(1, { first: 200, max: Infinity, jitter: 0.25 }); // 300 to 500
 * ```
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { first, max, jitter = 0, random = Math.random } = options;
  // At most 1000 doublings: `2 ** 1024` is Infinity, and `0 * Infinity` (a first wait of 0) is NaN.
  const steps = Math.min(1000, Math.max(0, Math.floor(attempt)));
  const delay = Math.min(max, first * 2 ** steps);
  return jitter === 0 ? delay : delay * (1 - jitter + random() * 2 * jitter);
}
