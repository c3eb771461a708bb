/** Where the progress line goes: a writable stream, a terminal or not. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** A progress counter; it writes nothing unless enabled. */
export interface ProgressLine {
  /** One more page done. */
  tick(): void;
  /** Clear the line (the summary follows). */
  done(): void;
}

/** Runs shorter than this show no progress. */
export const PROGRESS_MIN_PAGES = 100;

/**
 * A one-line progress counter, `Siegel: 120/10000 pages`, rewritten in place (`\r`) at most every
 * `intervalMs` (and for the last page), cleared by `done()`. Enabled for runs of at least
 * {@link PROGRESS_MIN_PAGES} pages when `enabled` is true.
 *
 * @example
 * ```ts
 * const progress = createProgressLine(paths.length, { enabled: process.stderr.isTTY === true });
 * ```
 */
export function createProgressLine(
  total: number,
  options: { enabled: boolean; stream?: ProgressStream; intervalMs?: number; now?: () => number },
): ProgressLine {
  const enabled = options.enabled && total >= PROGRESS_MIN_PAGES;
  const stream = options.stream ?? process.stderr;
  const intervalMs = options.intervalMs ?? 200;
  const now = options.now ?? Date.now;
  let count = 0;
  let last: number | undefined;
  return {
    tick() {
      count++;
      if (!enabled) return;
      const time = now();
      if (last !== undefined && time - last < intervalMs && count < total) return;
      last = time;
      stream.write(`\rSiegel: ${count}/${total} pages`);
    },
    done() {
      if (enabled) stream.write('\r\u001b[K');
    },
  };
}
