import type { OrphanSweep } from './file-signer.js';

/** Options of {@link OrphanSweeper}. */
export interface OrphanSweeperOptions {
  /** One sweep: all stored files, or only those of `hashes` (`FileSigner.removeOrphans`). */
  removeOrphans(hashes?: readonly string[]): Promise<OrphanSweep>;
  /** How often a full sweep runs besides at start, in ms (`ORPHAN_SWEEP_MS`); 0: only at start. */
  everyMs: number;
  /** Where it says what it removed, and why a sweep failed (default `console.warn`). */
  warn?: (message: string) => void;
}

/**
 * How long after a claim's end the sweeper looks again, in ms: the lease is counted on the store's clock
 * (PostgreSQL: `now()`), the wait on this process's timers.
 */
export const AFTER_CLAIM_ENDS_MS = 100;

/** How long a failed look at held hashes waits before it is tried again, in ms. */
export const HELD_RETRY_MS = 5_000;

/**
 * Runs the orphan sweep of one instance: a full sweep at start and every `everyMs`, and — for the files a
 * sweep had to leave because a claim held their hash (an upload in flight, or one whose process was killed
 * and whose lease has not ended yet) — a look at just those hashes once the earliest of their claims ends,
 * again as long as some are held. So the files of an upload killed mid-write are gone once its lease has
 * passed (`CLAIM_LEASE_MS`), not at the next full sweep an hour later; a live upload's hash is looked at
 * about once a lease until it is recorded. One sweep runs at a time.
 *
 * @example
 * ```ts
 * const sweeper = new OrphanSweeper({ removeOrphans: (hashes) => fileSigner.removeOrphans(hashes), everyMs: 3_600_000 });
 * sweeper.start();
 * // at shutdown
 * sweeper.stop();
 * ```
 */
export class OrphanSweeper {
  private readonly held = new Set<string>();
  private periodic: NodeJS.Timeout | undefined;
  private lookAgainTimer: NodeJS.Timeout | undefined;
  private lookAgainAt = Number.POSITIVE_INFINITY;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: OrphanSweeperOptions) {}

  /** Sweep now (beside the first requests: it only ever deletes under a hash's claim), then every `everyMs`. */
  start(): void {
    void this.sweep();
    if (this.options.everyMs > 0)
      this.periodic = setInterval(() => void this.sweep(), this.options.everyMs).unref();
  }

  /** One full sweep, after the one running; resolves once done (a failure is told, never thrown). */
  sweep(): Promise<void> {
    return this.run(undefined);
  }

  /** Hashes waiting for their claims to end, to be looked at again. */
  get waiting(): readonly string[] {
    return [...this.held];
  }

  /** No more sweeps (one running finishes). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.periodic);
    clearTimeout(this.lookAgainTimer);
  }

  private run(hashes: readonly string[] | undefined): Promise<void> {
    const warn = this.options.warn ?? ((message: string) => console.warn(message));
    this.running = this.running.then(async () => {
      if (this.stopped) return;
      try {
        const { removed, held } = await this.options.removeOrphans(hashes);
        if (removed.length > 0)
          warn(`Removed ${removed.length} stored file(s) without a record: ${removed.join(', ')}`);
        this.lookLater(held);
      } catch (error) {
        warn(`Orphan sweep failed, tried again later: ${(error as Error).message}`);
        // A full sweep runs again in `everyMs`; held hashes are not forgotten.
        if (hashes !== undefined) this.lookLater(hashes.map((hash) => ({ hash, endsInMs: HELD_RETRY_MS })));
      }
    });
    return this.running;
  }

  /**
   * Look at the files of `held` hashes once the earliest of their claims has ended (with those waiting
   * already): what a sweep reports held, and the hash of a write whose outcome is unknown (`FileSigner`'s
   * `onUnsettled`).
   */
  lookLater(held: OrphanSweep['held']): void {
    if (held.length === 0 || this.stopped) return;
    for (const { hash } of held) this.held.add(hash);
    const at = Date.now() + Math.min(...held.map((entry) => entry.endsInMs)) + AFTER_CLAIM_ENDS_MS;
    if (this.lookAgainTimer !== undefined && this.lookAgainAt <= at) return;
    clearTimeout(this.lookAgainTimer);
    this.lookAgainAt = at;
    this.lookAgainTimer = setTimeout(
      () => {
        this.lookAgainTimer = undefined;
        this.lookAgainAt = Number.POSITIVE_INFINITY;
        const hashes = [...this.held];
        this.held.clear();
        void this.run(hashes);
      },
      Math.max(0, at - Date.now()),
    ).unref();
  }
}
