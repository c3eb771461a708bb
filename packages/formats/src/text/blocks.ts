// Finding the metadata block at the start of a Markdown or text file, on its code units (text-encoding.ts):
// frontmatter fenced by `---` (YAML, or the language its fence names), `+++` (TOML) or `;;;` (JSON), Hugo's
// bare JSON object, a Pandoc title block, or MultiMarkdown metadata lines. One pass over the lines, no
// backtracking regular expression, so finding is linear in the file.
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import type { TextUnits } from './encoding.js';

/** The syntax a metadata block is written in. */
export type BlockSyntax = 'yaml' | 'toml' | 'json' | 'pandoc' | 'mmd';

/** A metadata block: its syntax and where its content and the text after it begin, in code units. */
export interface MetadataBlock {
  syntax: BlockSyntax;
  /**
   * How it is delimited: `---` naming no language (YAML, or JSON when it holds a JSON object, as gray-matter
   * writes it), another fence, Hugo's braces, or lines (a title block, MultiMarkdown). The document (and its
   * first heading) follows a delimited block.
   */
  delimiter: 'plain-fence' | 'fence' | 'braces' | 'lines';
  start: number;
  contentEnd: number;
  end: number;
}

/** Code units: UTF-8 bytes or UTF-16 code units (`TextUnits.units`). */
type Units = Uint8Array | Uint16Array;

const MAX_BLOCK_CHARS = FORMAT_LIMITS.frontmatter_bytes;
const [LF, CR, TAB, SPACE, QUOTE, PERCENT, PLUS, DASH, DOT, COLON, SEMICOLON, BACKSLASH, UNDERSCORE] = [
  10, 13, 9, 32, 34, 37, 43, 45, 46, 58, 59, 92, 95,
];
const [OPEN_BRACE, CLOSE_BRACE] = [123, 125];
/** What a language named after `---` is read as (gray-matter's `---json`, `---toml`; Deno's std too). */
const FENCE_LANGUAGES: Record<string, BlockSyntax> = {
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  json: 'json',
};

/**
 * The metadata block `text` starts with, if any. Fenced frontmatter and Hugo's JSON may follow blank lines
 * (Hugo and Pandoc skip them); a Pandoc title block and MultiMarkdown lines start the file.
 *
 * - `---` (optionally naming `yaml`, `yml`, `toml` or `json`) up to a line `---` or `...` (Jekyll, Pandoc,
 *   gray-matter); `+++` up to `+++`, TOML (Hugo, Zola); `;;;` up to `;;;`, JSON (Middleman).
 * - `{` up to its matching `}` at the end of a line: Hugo's JSON frontmatter, matched as Hugo's lexer does
 *   (braces outside `"` strings, a backslash escaping the next character).
 * - `%` lines: a Pandoc title block (`% title`, `% author; author`, `% date`, continued on indented lines).
 * - `Key: value` lines up to the first blank line (or a `---`/`...` line): MultiMarkdown metadata, with
 *   indented continuation lines (Logseq's `key:: value` properties too). Any other line in them means they are text, not metadata; so do lines
 *   running past the frontmatter limit (the file is read as text without metadata, never refused for it).
 *
 * @throws {FormatError} with `limit: 'frontmatter_bytes'` when Hugo's JSON object or a title
 *   block runs past the frontmatter limit.
 */
export function findMetadataBlock(text: TextUnits): MetadataBlock | undefined {
  const units = text.units;
  let line = 0;
  for (let end = blankLineEnd(units, 0); end !== undefined; end = blankLineEnd(units, line)) line = end;
  const fence = findFencedBlock(units, line);
  if (fence !== undefined || isFence(units, line, DASH)) return fence;
  if (units[line] === OPEN_BRACE) return findJsonObject(text, line);
  if (line > 0) return undefined;
  if (units[0] === PERCENT) return findTitleBlock(units, MAX_BLOCK_CHARS * text.unitsPerChar);
  return findMultiMarkdownLines(units);
}

/** A fenced block at `line`; `undefined` when its opening fence names another language or never closes. */
function findFencedBlock(units: Units, line: number): MetadataBlock | undefined {
  const mark = units[line];
  if ((mark !== DASH && mark !== PLUS && mark !== SEMICOLON) || !isFence(units, line, mark)) return undefined;
  let position = skipBlanks(units, line + 3);
  let syntax: BlockSyntax = mark === PLUS ? 'toml' : mark === SEMICOLON ? 'json' : 'yaml';
  let delimiter: MetadataBlock['delimiter'] = mark === DASH ? 'plain-fence' : 'fence';
  if (mark === DASH && isLetter(units[position])) {
    const wordStart = position;
    while (isLetter(units[position])) position++;
    const named = FENCE_LANGUAGES[asciiLower(units, wordStart, position)];
    if (named === undefined) return undefined;
    syntax = named;
    delimiter = 'fence';
    position = skipBlanks(units, position);
  }
  if (units[position] === CR) position++;
  if (units[position] !== LF) return undefined;
  const start = position + 1;
  // Each later line start (after a `\n` at or after `start`) may be the closing fence.
  for (let newline = units.indexOf(LF, start); newline !== -1; newline = units.indexOf(LF, newline + 1)) {
    const next = newline + 1;
    if (!isFence(units, next, mark) && !(mark === DASH && isFence(units, next, DOT))) continue;
    const after = skipBlanks(units, next + 3);
    const end = lineEndAt(units, after);
    if (end === undefined) continue;
    const contentEnd = newline > start && units[newline - 1] === CR ? newline - 1 : newline;
    return { syntax, delimiter, start, contentEnd, end };
  }
  return undefined;
}

/**
 * Hugo's JSON frontmatter at `line`: its end found by counting braces outside strings, as Hugo's lexer does,
 * within the frontmatter limit. Not a block when the object never closes or text follows it on its line, nor
 * when `{` is followed by anything but a key or `}` (a Hugo shortcode `{{< … >}}`, a Liquid tag `{% … %}`).
 */
function findJsonObject(text: TextUnits, line: number): MetadataBlock | undefined {
  const units = text.units;
  let first = line + 1;
  while ([SPACE, TAB, LF, CR].includes(units[first] as number)) first++;
  if (units[first] !== QUOTE && units[first] !== CLOSE_BRACE) return undefined;
  const bound = Math.min(units.length, line + MAX_BLOCK_CHARS * text.unitsPerChar);
  let level = 0;
  let inString = false;
  for (let position = line; position < bound; position++) {
    const unit = units[position];
    if (unit === BACKSLASH) position++;
    else if (unit === QUOTE) inString = !inString;
    else if (!inString && unit === OPEN_BRACE) level++;
    else if (!inString && unit === CLOSE_BRACE && --level === 0) {
      const end = lineEndAt(units, skipBlanks(units, position + 1));
      if (end === undefined) return undefined;
      return { syntax: 'json', delimiter: 'braces', start: line, contentEnd: position + 1, end };
    }
  }
  if (bound === units.length) return undefined;
  throw pastLimit('frontmatter_bytes', `The JSON frontmatter is larger than ${MAX_BLOCK_CHARS} bytes`);
}

/**
 * A Pandoc title block: up to three lines starting with `%` (title, authors, date), each continued on lines
 * that start with a blank; it ends at the first other line.
 */
function findTitleBlock(units: Units, bound: number): MetadataBlock {
  let fields = 0;
  let line = 0;
  while (line < units.length) {
    const first = units[line];
    const continues = (first === SPACE || first === TAB) && fields > 0 && !isBlankLine(units, line);
    if (!continues && (first !== PERCENT || fields === 3)) break;
    if (first === PERCENT) fields++;
    line = nextLine(units, line);
    if (line > bound) {
      throw pastLimit('frontmatter_bytes', `The title block is larger than ${MAX_BLOCK_CHARS} bytes`);
    }
  }
  return { syntax: 'pandoc', delimiter: 'lines', start: 0, contentEnd: line, end: line };
}

/**
 * MultiMarkdown metadata: `Key: value` lines (a key of ASCII letters, digits, blanks, `_`, `-`, `.`) and
 * indented continuation lines, up to a blank line, a `---`/`...` line or the end.
 */
function findMultiMarkdownLines(units: Units): MetadataBlock | undefined {
  let line = 0;
  while (line < units.length && !isBlankLine(units, line)) {
    if (line > 0 && (isFence(units, line, DASH) || isFence(units, line, DOT))) break;
    const first = units[line];
    if (line === 0 || (first !== SPACE && first !== TAB)) {
      if (!isKeyLine(units, line)) return undefined;
    }
    line = nextLine(units, line);
    // Counted in units, so that what is read never holds more characters than the limit either.
    if (line > MAX_BLOCK_CHARS) return undefined;
  }
  if (line === 0) return undefined;
  return { syntax: 'mmd', delimiter: 'lines', start: 0, contentEnd: line, end: line };
}

function isKeyLine(units: Units, line: number): boolean {
  if (!isAlphanumeric(units[line])) return false;
  let position = line + 1;
  for (let unit = units[position]; isAlphanumeric(unit) || isKeyPunctuation(unit); unit = units[position]) {
    position++;
  }
  return units[position] === COLON;
}

/** The start of the line after the one at `line` (past `\n`, `\r\n` or `\r`), or the end. */
function nextLine(units: Units, line: number): number {
  let position = line;
  while (position < units.length && units[position] !== LF && units[position] !== CR) position++;
  if (units[position] === CR) position++;
  if (units[position] === LF) position++;
  return position;
}

/** Where the line after a blank line (blanks, then `\n` or `\r\n`) at `line` starts, if it is one. */
function blankLineEnd(units: Units, line: number): number | undefined {
  const position = skipBlanks(units, line);
  if (units[position] === LF) return position + 1;
  return units[position] === CR && units[position + 1] === LF ? position + 2 : undefined;
}

function isBlankLine(units: Units, line: number): boolean {
  const position = skipBlanks(units, line);
  return position >= units.length || units[position] === LF || units[position] === CR;
}

/** Where the text after a line ending at `at` starts: past `\n` or `\r\n`, or the end; else `undefined`. */
function lineEndAt(units: Units, at: number): number | undefined {
  if (at >= units.length) return at;
  if (units[at] === LF) return at + 1;
  return units[at] === CR && units[at + 1] === LF ? at + 2 : undefined;
}

function skipBlanks(units: Units, from: number): number {
  let position = from;
  while (units[position] === SPACE || units[position] === TAB) position++;
  return position;
}

export function isFence(units: Units, at: number, unit: number): boolean {
  return units[at] === unit && units[at + 1] === unit && units[at + 2] === unit;
}

function isLetter(unit: number | undefined): boolean {
  return unit !== undefined && ((unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122));
}

function isAlphanumeric(unit: number | undefined): boolean {
  return isLetter(unit) || (unit !== undefined && unit >= 48 && unit <= 57);
}

function isKeyPunctuation(unit: number | undefined): boolean {
  return unit === SPACE || unit === DASH || unit === DOT || unit === UNDERSCORE;
}

function asciiLower(units: Units, start: number, end: number): string {
  let word = '';
  for (let position = start; position < end; position++)
    word += String.fromCharCode((units[position] as number) | 0x20);
  return word;
}
