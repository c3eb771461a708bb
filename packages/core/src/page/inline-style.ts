/// <reference path="./css-tree-tokenizer.d.ts" />
// Reading a `style` attribute as a browser does: the declarations of a CSS declaration list, each with its
// value's tokens and whether it is `!important`. Tokens come from css-tree's tokenizer (CSS Syntax Level 3:
// comments, strings, escapes, numbers with units). The declaration list itself is split here (CSS Syntax §
// "consume a list of declarations": top-level `;`, name, `:`, value, trailing `!important`) rather than
// with css-tree's parser, which would add about 50 KB (minified) to the browser verify script for a few
// lines of work; the tokenizer adds 4 KB.
import { tokenize } from 'css-tree/tokenizer';

// Token types of CSS Syntax Level 3, as css-tree numbers them.
const IDENT = 1;
const FUNCTION = 2;
const DELIM = 9;
const NUMBER = 10;
const PERCENTAGE = 11;
const DIMENSION = 12;
const WHITESPACE = 13;
const COLON = 16;
const SEMICOLON = 17;
const OPEN = new Set([2, 19, 21, 23]); // function, [, (, {
const CLOSE = new Set([20, 22, 24]); // ], ), }
const COMMENT = 25;

/** One token of a declaration's value. `name`: an ident's or function's name, escapes decoded, lower case. */
export interface StyleToken {
  kind: 'ident' | 'function' | 'number' | 'delim' | 'other';
  /** Ident or function name (lower case); the delimiter character; or the token's text. */
  name: string;
  /** For `number`: the numeric value (percentages and dimensions too). */
  value?: number;
  /** For `number`: `''`, `'%'` or the unit in lower case. */
  unit?: string;
}

/** A declaration's value: its tokens (no whitespace, no comments) and its importance. */
export interface StyleValue {
  tokens: StyleToken[];
  important: boolean;
}

/** Decode CSS escapes (`\64 `, `\d`) in an identifier, as the tokenizer's "consume a name" does. */
function decodeEscapes(text: string): string {
  return text.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|([^\n\r\f]))/g, (_match, hex, char) => {
    if (char !== undefined) return char;
    const code = Number.parseInt(hex, 16);
    const invalid = code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff);
    return String.fromCodePoint(invalid ? 0xfffd : code);
  });
}

function readToken(type: number, text: string): StyleToken {
  switch (type) {
    case IDENT:
      return { kind: 'ident', name: decodeEscapes(text).toLowerCase() };
    case FUNCTION:
      return { kind: 'function', name: decodeEscapes(text.slice(0, -1)).toLowerCase() };
    case NUMBER:
    case PERCENTAGE:
    case DIMENSION: {
      const match = /^[+-]?(\d*\.?\d+(?:[eE][+-]?\d+)?)/.exec(text);
      const number = match ? Number.parseFloat(match[0]) : Number.NaN;
      const unit =
        type === NUMBER
          ? ''
          : type === PERCENTAGE
            ? '%'
            : decodeEscapes(text.slice(match?.[0].length ?? 0)).toLowerCase();
      return { kind: 'number', name: text, value: number, unit };
    }
    case DELIM:
      return { kind: 'delim', name: text };
    default:
      return { kind: 'other', name: text };
  }
}

/**
 * The declarations of a `style` attribute, by property name (lower case; custom properties as written):
 * for each property the declaration that wins — the last one, unless an earlier one is `!important` and it
 * is not. Declarations without a name and a colon are dropped, as browsers drop them.
 *
 * @example
 * ```ts
 * readInlineStyle('DISPLAY: None !important; opacity: 0').get('display'); // { tokens: [{ kind: 'ident', name: 'none' }], important: true }
 * ```
 */
export function readInlineStyle(style: string): Map<string, StyleValue> {
  const declarations = new Map<string, StyleValue>();
  let current: Array<{ type: number; text: string }> = [];
  let depth = 0;
  const finish = () => {
    addDeclaration(declarations, current);
    current = [];
  };
  tokenize(style, (type: number, start: number, end: number) => {
    if (type === COMMENT) return;
    if (depth === 0 && type === SEMICOLON) {
      finish();
      return;
    }
    if (OPEN.has(type)) depth++;
    else if (CLOSE.has(type) && depth > 0) depth--;
    current.push({ type, text: style.slice(start, end) });
  });
  finish();
  return declarations;
}

function addDeclaration(map: Map<string, StyleValue>, raw: Array<{ type: number; text: string }>): void {
  const parts = raw.filter((token) => token.type !== WHITESPACE);
  const [name, colon] = parts;
  if (name?.type !== IDENT || colon?.type !== COLON) return;
  const tokens = parts.slice(2).map((token) => readToken(token.type, token.text));
  const last = tokens[tokens.length - 1];
  const bang = tokens[tokens.length - 2];
  const important = last?.kind === 'ident' && last.name === 'important' && bang?.name === '!';
  if (important) tokens.length -= 2;
  const property = decodeEscapes(name.text);
  const key = property.startsWith('--') ? property : property.toLowerCase();
  const before = map.get(key);
  if (before?.important && !important) return;
  map.set(key, { tokens, important });
}
