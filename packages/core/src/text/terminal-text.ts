// text/ owns how values become words for people: terminal-safe text here, byte sizes in byte-size.ts, a
// run's progress line in progress-line.ts, the option a typo likely meant in closest-name.ts. Every
// room may use it; it imports nothing from the others.
//
// Text from elsewhere — a signer's error or approval URL, a relay's refusal, a bunker's message — ends up
// in terminals and logs. Raw, an ESC sequence in it can clear the screen, move the cursor or fake a prompt,
// and a newline or a bidi override can fake a line of our own. Every CLI passes what it prints through
// here, and the places that quote a remote string in a one-line message quote it with `singleLine`.

/** C0 and C1 controls (but tab and newline), DEL, and the bidi embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same, plus tab, newline and the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every character a terminal would act on instead of show written as a visible `\uXXXX`
 * escape; with `singleLine`, newlines and tabs too (for a remote string quoted inside one line).
 *
 * @example
 * ```ts
 * toTerminalSafe('refused: \u001b[2Jblocked');                 // 'refused: \\u001b[2Jblocked'
 * toTerminalSafe('a\nKey ok', { singleLine: true });           // 'a\\u000aKey ok'
 * ```
 */
export function toTerminalSafe(text: string, options: { singleLine?: boolean } = {}): string {
  return text.replace(
    options.singleLine ? UNSAFE_IN_LINE : UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
