/** Author names that say "nobody in particular" and are rejected (compared case-insensitively, trimmed). */
export const PLACEHOLDER_AUTHORS: ReadonlySet<string> = new Set([
  'unknown',
  'unbekannt',
  'anonymous',
  'anonym',
  'ai',
  'ki',
  'generated',
  'test',
  'example',
]);

/** Collapse whitespace and control characters in a name or title; `undefined` when nothing is left. */
export function cleanText(value: unknown, maxLength = 500): string | undefined {
  if (typeof value !== 'string') return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const cleaned = value.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  if (cleaned === '') return undefined;
  return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength)}…` : cleaned;
}

/**
 * Whether `name` is a real author: at least two characters and not one of {@link PLACEHOLDER_AUTHORS}.
 *
 * @example
 * ```ts
 * isRealAuthor('Jürgen Müller'); // true
 * isRealAuthor('Unknown');       // false
 * ```
 */
export function isRealAuthor(name: string): boolean {
  const normalized = name.trim().toLowerCase();
  return [...normalized].length >= 2 && !PLACEHOLDER_AUTHORS.has(normalized);
}

/** The distinct, cleaned names in `names`, in order, without placeholders. */
export function selectAuthors(names: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const name of names) {
    const cleaned = cleanText(name, 200);
    if (cleaned === undefined || !isRealAuthor(cleaned) || seen.has(cleaned)) continue;
    seen.add(cleaned);
    result.push(cleaned);
    if (result.length >= 20) break;
  }
  return result;
}
