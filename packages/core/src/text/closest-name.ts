/**
 * The edit distance between two strings (Levenshtein: insertions, deletions, substitutions, each 1), with
 * one swap of adjacent characters counted as 1 too (`--stie` is one typo of `--site`, not two).
 *
 * @example
 * ```ts
 * editDistance('sitee', 'site') // 1
 * ```
 */
export function editDistance(a: string, b: string): number {
  // Rows of the optimal-string-alignment table; three rows are enough for the adjacent swap.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] as number) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The candidate `name` most likely is a typo of: the nearest by {@link editDistance}, if it is near enough
 * to be a typo (at most 1 edit for names up to 4 characters, 2 up to 8, else 3), the first of equals;
 * `undefined` when none is.
 *
 * @example
 * ```ts
 * closestName('sitee', ['site', 'selector']) // 'site'
 * closestName('frobnicate', ['site', 'selector']) // undefined
 * ```
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
