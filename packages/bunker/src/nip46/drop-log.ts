import type { Logger } from '../logger.js';

/** Why a kind-24133 event was dropped, as counted and summarised. */
export const DROP_REASONS = {
  malformed: 'malformed or addressed to no key of ours',
  stale: 'dated outside the accepted window',
  duplicate: 'already handled',
  stranger: 'from a stranger to a connection (never answerable; not checked)',
  overBudget: "over the strangers' budget (not checked)",
  badSignature: 'with a bad signature',
  undecryptable: 'not decryptable, or no request inside',
  unanswered: 'from a stranger that was not a valid connect',
} as const;

export type DropReason = keyof typeof DROP_REASONS;

/** How often at most a summary line is written: one minute. */
export const DROP_SUMMARY_INTERVAL_MS = 60_000;

/**
 * Counts dropped NIP-46 events and writes at most one summary line per interval, instead of one line per
 * event: a flood of strangers must not become a flood of log lines. The first drop after a quiet interval is
 * reported at once (with whatever came before it); the rest at the end of the interval, and at
 * {@link DropLog.flush} (shutdown).
 */
export class DropLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #counts = new Map<DropReason, number>();
  #lastLine = Number.NEGATIVE_INFINITY;
  #since: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(logger: Logger, intervalMs = DROP_SUMMARY_INTERVAL_MS, now: () => number = Date.now) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
    this.#now = now;
    this.#since = now();
  }

  /** Count one dropped event. */
  count(reason: DropReason): void {
    if (this.#counts.size === 0) this.#since = this.#now();
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
    const wait = this.#lastLine + this.#intervalMs - this.#now();
    if (wait <= 0) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), wait);
      this.#timer.unref();
    }
  }

  /** Write the summary of what was counted since the last line, if anything. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#now();
    if (this.#counts.size > 0) {
      let total = 0;
      const parts: string[] = [];
      for (const [reason, n] of this.#counts) {
        total += n;
        parts.push(`${n} ${DROP_REASONS[reason]}`);
      }
      const seconds = Math.max(1, Math.round((now - this.#since) / 1000));
      this.#logger.warn(
        `NIP-46: dropped ${total} event${total === 1 ? '' : 's'} in the last ${seconds} s: ${parts.join('; ')}`,
      );
      this.#counts.clear();
      this.#lastLine = now;
    }
    this.#since = now;
  }
}
