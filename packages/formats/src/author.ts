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

/**
 * The name in an author written as npm's person (`Name <email> (url)`, as `package.json` and many
 * frontmatter `author:` fields hold it): without the e-mail address in `<…>`, or a web or e-mail address in
 * `(…)`. A careful author does not expect the address made public in a signed event when they only meant to
 * say who wrote the file; `(Photographer)` and other words in brackets stay. Linear: neither pattern
 * backtracks past the next bracket.
 *
 * @example
 * ```ts
 * nameOf('Ana Lima <ana@example.org> (https://ana.example)'); // 'Ana Lima'
 * nameOf('Ana Lima (Photographer)');                          // 'Ana Lima (Photographer)'
 * ```
 */
export function nameOf(author: string): string {
  return author
    .replace(/<([^<>]*)>/g, (whole, inner: string) => (/@|:/.test(inner) ? ' ' : whole))
    .replace(/\(([^()]*)\)/g, (whole, inner: string) => (isAddress(inner.trim()) ? ' ' : whole))
    .replace(/\s+([,;])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** An e-mail or web address: `a@b`, `https://…`, `www.…`, or a bare domain (`ana.example`, `ana.dev/blog`). */
function isAddress(text: string): boolean {
  return /@|:\/\//.test(text) || /^(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:\/\S*)?$/.test(text);
}

/**
 * The distinct, cleaned names in `names`, in order, without placeholders, each without the addresses of
 * npm's person format ({@link nameOf}).
 */
export function selectAuthors(names: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const name of names) {
    const cleaned = cleanText(typeof name === 'string' ? nameOf(name) : name, 200);
    if (cleaned === undefined || !isRealAuthor(cleaned) || seen.has(cleaned)) continue;
    seen.add(cleaned);
    result.push(cleaned);
    if (result.length >= 20) break;
  }
  return result;
}
