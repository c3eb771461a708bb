// toTerminalSafe (text/terminal-text.ts): what every CLI prints of text from elsewhere. The processes that
// print it are test/nostr/terminal-safety.test.ts's; the escapes themselves are pure, and checked here.
import { describe, expect, it } from 'vitest';
import { toTerminalSafe } from '../src/text/terminal-text.js';

describe('toTerminalSafe', () => {
  it('writes ESC, other C0 and C1 controls and DEL as visible \\uXXXX escapes', () => {
    expect(toTerminalSafe('refused: \u001b[2Jblocked')).toBe('refused: \\u001b[2Jblocked');
    expect(toTerminalSafe('\u0000\u0007\u0008\u000b\u000c\u000d\u007f\u0085\u009b')).toBe(
      '\\u0000\\u0007\\u0008\\u000b\\u000c\\u000d\\u007f\\u0085\\u009b',
    );
  });

  it('writes the bidi embeddings, overrides and isolates as escapes', () => {
    expect(toTerminalSafe('a\u202eb\u2066c\u2069')).toBe('a\\u202eb\\u2066c\\u2069');
  });

  it('keeps tab, newline and printable text (accents, emoji, CJK) as they are', () => {
    const text = 'Zeile 1\n\tGrüße, 署名 ✅ — “quoted”';
    expect(toTerminalSafe(text)).toBe(text);
  });

  it('with singleLine, also escapes newline, tab and the line and paragraph separators', () => {
    expect(toTerminalSafe('a\nKey ok', { singleLine: true })).toBe('a\\u000aKey ok');
    expect(toTerminalSafe('a\tb\u2028c\u2029d\re', { singleLine: true })).toBe(
      'a\\u0009b\\u2028c\\u2029d\\u000de',
    );
  });

  it('leaves nothing a terminal would act on: every code point below U+00A0 but tab and newline', () => {
    for (let code = 0; code < 0xa0; code++) {
      const char = String.fromCharCode(code);
      const printable = (code >= 0x20 && code < 0x7f) || char === '\n' || char === '\t';
      const safe = toTerminalSafe(char);
      expect(safe, `U+${code.toString(16).padStart(4, '0')}`).toBe(
        printable ? char : `\\u${code.toString(16).padStart(4, '0')}`,
      );
    }
  });
});
