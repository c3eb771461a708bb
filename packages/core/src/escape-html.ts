const REPLACEMENTS: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * Escape text for a double-quoted HTML attribute value or for element text: `&`, `"`, `'`, `<`, `>`.
 *
 * @example
 * ```ts
 * escapeHtml('"><script>'); // '&quot;&gt;&lt;script&gt;'
 * ```
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&"'<>]/g, (character) => REPLACEMENTS[character] ?? character);
}

/**
 * Make text safe inside an HTML comment: no `<` or `>` (so no `-->`, `--!>`, `<!--`) and no `--`.
 *
 * @example
 * ```ts
 * escapeComment('a --> b'); // 'a -&#45;&gt; b'
 * ```
 */
export function escapeComment(value: string): string {
  return value.replace(/[<>]/g, (character) => REPLACEMENTS[character] ?? character).replace(/--/g, '-&#45;');
}
