/** A token bucket: `burst` at most, refilled at `perSecond`. */
export interface Bucket {
  /** Most events taken at once. */
  burst: number;
  /** Refill rate, events per second. */
  perSecond: number;
}

/** How much checking strangers may cost; see {@link DEFAULT_STRANGER_BUDGET}. */
export interface StrangerBudgetOptions {
  /** Per author pubkey. */
  perPubkey: Bucket;
  /** All strangers together. */
  global: Bucket;
  /**
   * The first this many events to each unused URI are its own allowance, not taken from the global bucket
   * (the author's still applies): a flood at one leaked URI cannot starve the `connect` of the next one.
   */
  perUri: number;
}

/**
 * What a stranger may cost the bunker by default: per author, 4 at once and then one every 10 s; all
 * strangers together, 50 at once and then 10 per second; plus 4 per unused URI of its own. A stranger is
 * an author that is not an authorised client of the key its event is addressed to; its event can only be a
 * `connect` to an unused URI, so a genuine one needs one or two.
 */
export const DEFAULT_STRANGER_BUDGET: StrangerBudgetOptions = {
  perPubkey: { burst: 4, perSecond: 0.1 },
  global: { burst: 50, perSecond: 10 },
  perUri: 4,
};

/** Authors tracked at most; past it the longest unseen is forgotten (it starts again with a full bucket). */
const MAX_TRACKED = 10_000;

interface Level {
  tokens: number;
  /** Milliseconds. */
  at: number;
}

/**
 * The budget for strangers' events: a signature check and an ECDH each, only while both the author's
 * bucket and the global one hold a token. Past it the event is dropped unread.
 *
 * @example
 * ```ts
 * const budget = new StrangerBudget(DEFAULT_STRANGER_BUDGET);
 * if (!budget.take(event.pubkey)) return; // dropped, counted
 * ```
 */
export class StrangerBudget {
  readonly options: StrangerBudgetOptions;
  readonly #now: () => number;
  readonly #authors = new Map<string, Level>();
  readonly #global: Level;
  /** Events charged to each URI's own allowance so far. */
  readonly #uris = new Map<string, number>();

  constructor(options: StrangerBudgetOptions = DEFAULT_STRANGER_BUDGET, now: () => number = Date.now) {
    for (const bucket of [options.perPubkey, options.global]) {
      if (!(bucket.burst >= 1) || !(bucket.perSecond >= 0)) {
        throw new TypeError(
          `A stranger budget needs burst ≥ 1 and perSecond ≥ 0, got \`${JSON.stringify(bucket)}\``,
        );
      }
    }
    this.options = options;
    this.#now = now;
    this.#global = { tokens: options.global.burst, at: now() };
  }

  /**
   * Take one token for an event of `pubkey` to the unused URI `uri` (its remote-signer pubkey): from the
   * author's bucket, and from the URI's own allowance or else the global bucket; `false` (nothing taken)
   * when the author's bucket or both others are empty.
   */
  take(pubkey: string, uri: string): boolean {
    const now = this.#now();
    refill(this.#global, this.options.global, now);
    let author = this.#authors.get(pubkey);
    if (author) {
      this.#authors.delete(pubkey);
      refill(author, this.options.perPubkey, now);
    } else {
      author = { tokens: this.options.perPubkey.burst, at: now };
      if (this.#authors.size >= MAX_TRACKED)
        this.#authors.delete(this.#authors.keys().next().value as string);
    }
    // Re-inserted: the map's order is the order of last use.
    this.#authors.set(pubkey, author);
    if (author.tokens < 1) return false;
    const used = this.#uris.get(uri) ?? 0;
    if (used < this.options.perUri) {
      if (this.#uris.size >= MAX_TRACKED) this.#uris.delete(this.#uris.keys().next().value as string);
      this.#uris.set(uri, used + 1);
    } else if (this.#global.tokens >= 1) {
      this.#global.tokens--;
    } else {
      return false;
    }
    author.tokens--;
    return true;
  }
}

function refill(level: Level, bucket: Bucket, now: number): void {
  level.tokens = Math.min(bucket.burst, level.tokens + ((now - level.at) / 1000) * bucket.perSecond);
  level.at = now;
}
