// pages/ owns checking a page at an address for anyone (issue 38): core's `checkPageAtUrl` under the
// server's address policy, behind one flight per URL, a brief cache and a rate per target host
// (`PageChecks`, here), and its refusals as domain errors (`PageCheckError`: a kind, no HTTP status).
import { isSiegelError, type PageAtUrl } from '@siegel/core';

/** Why a page was not checked: the address, the page, the target host's rate, or the server's room. */
export type PageCheckErrorKind = 'invalid_url' | 'unavailable' | 'host_busy' | 'busy';

/** A page not checked, and why; `retryAfterSeconds` when asking again later may do. */
export class PageCheckError extends Error {
  readonly kind: PageCheckErrorKind;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: PageCheckErrorKind, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'PageCheckError';
    this.kind = kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Longest address taken, in characters (a browser's address bar holds more; a page's address seldom does). */
const MAX_URL_LENGTH = 2048;

/**
 * The address a person asked to check: an absolute http(s) URL without a user name or password, its
 * fragment dropped (never sent to a server).
 *
 * @throws {PageCheckError} `invalid_url`, quoting (the start of) what was given.
 */
export function readTargetUrl(raw: string): URL {
  const quoted = `\`${raw.slice(0, 200)}\``;
  if (raw.length > MAX_URL_LENGTH)
    throw new PageCheckError('invalid_url', `\`url\` is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new PageCheckError('invalid_url', `\`url\` must be an absolute http(s) URL, got ${quoted}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PageCheckError('invalid_url', `\`url\` must be an http(s) URL, got ${quoted}`);
  if (url.username !== '' || url.password !== '')
    throw new PageCheckError('invalid_url', '`url` must not carry a user name or password');
  url.hash = '';
  return url;
}

/** Options of {@link PageChecks}. */
export interface PageChecksOptions {
  /** One check of one page (core's `checkPageAtUrl` with the policy, relays and bounds already set). */
  check: (url: string) => Promise<PageAtUrl>;
  /**
   * Counts one fetch of `host`: `undefined` when it may start now, else the milliseconds until it may (a
   * fixed window per host; several instances each keep their own).
   */
  admitHost: (host: string) => number | undefined;
  /** How long an answer is reused, in ms (never past its `freshUntil`; 0: not at all). */
  cacheMs: number;
  /** Checks running at once; one more is refused (`busy`) until one ends. */
  maxInFlight: number;
  /** Answers kept at most (default 1000). */
  maxCached?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** Seconds a client is told to wait when every check slot is taken. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Checks pages at addresses for the verify-by-URL routes. Requests for one URL while it is being checked
 * share that check (one flight: one fetch of the page); its answer is reused for `cacheMs`, never past the
 * answer's `freshUntil`. Only a check that fetches counts against the target host's rate (`admitHost`): a
 * host over it is not fetched (`host_busy`). At most `maxInFlight` checks run at once (`busy`). A check
 * that fails is not kept: the next request checks again, within the host's rate.
 */
export class PageChecks {
  readonly #options: PageChecksOptions;
  readonly #now: () => number;
  readonly #flights = new Map<string, Promise<PageAtUrl>>();
  readonly #answers = new Map<string, { answer: PageAtUrl; until: number }>();

  constructor(options: PageChecksOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The check of the page at `raw` (see {@link readTargetUrl}): reused, shared or new.
   *
   * @throws {PageCheckError} `invalid_url` (the address; also core's refusal of an option), `unavailable`
   * (refused by the address policy, unreachable, too large, too slow: core's message), `host_busy`,
   * `busy`.
   */
  check(raw: string): Promise<PageAtUrl> {
    const url = readTargetUrl(raw);
    const key = url.href;
    const now = this.#now();
    const kept = this.#answers.get(key);
    if (kept !== undefined && kept.until > now) return Promise.resolve(kept.answer);
    if (kept !== undefined) this.#answers.delete(key);
    const flying = this.#flights.get(key);
    if (flying !== undefined) return flying;
    if (this.#flights.size >= this.#options.maxInFlight)
      throw new PageCheckError(
        'busy',
        `The server is checking ${this.#flights.size} pages already; try again shortly`,
        BUSY_RETRY_AFTER_SECONDS,
      );
    const wait = this.#options.admitHost(url.hostname);
    if (wait !== undefined) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw new PageCheckError(
        'host_busy',
        `The server checked pages of ${url.hostname} too often; it fetches none from there for ${seconds} s`,
        seconds,
      );
    }
    const flight = this.#run(key);
    this.#flights.set(key, flight);
    void flight.then(
      () => this.#flights.delete(key),
      () => this.#flights.delete(key),
    );
    return flight;
  }

  async #run(key: string): Promise<PageAtUrl> {
    let answer: PageAtUrl;
    try {
      answer = await this.#options.check(key);
    } catch (error) {
      if (isSiegelError(error) && error.code === 'invalid_options')
        throw new PageCheckError('invalid_url', error.message);
      if (isSiegelError(error) && error.code === 'io_error')
        throw new PageCheckError('unavailable', error.message);
      throw error;
    }
    const until = Math.min(
      this.#now() + this.#options.cacheMs,
      answer.freshUntil ?? Number.POSITIVE_INFINITY,
    );
    if (until > this.#now()) {
      if (this.#answers.size >= (this.#options.maxCached ?? 1000)) this.#dropStale();
      this.#answers.set(key, { answer, until });
    }
    return answer;
  }

  /** Drop expired answers; still full: the oldest half. */
  #dropStale(): void {
    const now = this.#now();
    for (const [key, kept] of this.#answers) if (kept.until <= now) this.#answers.delete(key);
    const limit = this.#options.maxCached ?? 1000;
    if (this.#answers.size < limit) return;
    let drop = Math.ceil(this.#answers.size / 2);
    for (const key of this.#answers.keys()) {
      if (drop-- <= 0) break;
      this.#answers.delete(key);
    }
  }
}
