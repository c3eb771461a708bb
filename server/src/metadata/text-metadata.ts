import { parseDocument } from 'yaml';
import { invalidFormat } from '../api-error.js';
import type { FoundMetadata } from './file-metadata.js';
import { ANALYSIS_LIMITS, pastLimit } from './limits.js';

/** Frontmatter larger than this is refused (real frontmatter is a few hundred bytes). */
export const MAX_FRONTMATTER_BYTES = ANALYSIS_LIMITS.frontmatter_bytes;
/** Alias expansions allowed while reading frontmatter: stops "billion laughs" alias bombs. */
export const MAX_ALIAS_COUNT = ANALYSIS_LIMITS.yaml_aliases;

/**
 * Read author and title of a Markdown or text file from its YAML frontmatter (`---` … `---` at the very
 * start): `author:` as a string, a list of strings, or `{ name }` (also a list of those; `authors:` too);
 * `title:`, else the first Markdown heading (`# Title`); `description:`/`summary:`. The frontmatter and the
 * heading are found by one pass over the lines (no backtracking regular expression), so reading is linear
 * in the file; only the frontmatter (at most 64 KiB) is parsed as YAML.
 *
 * @throws {ApiError} `INVALID_FORMAT` for frontmatter that is not valid YAML, too large, or an alias bomb.
 */
export function readTextMetadata(text: string, markdown: boolean): FoundMetadata {
  return readTextFileMetadata(new TextEncoder().encode(text), markdown);
}

/**
 * {@link readTextMetadata} on the file's UTF-8 bytes, as uploaded: the text is never decoded whole (a 24 MiB
 * file of prose would be a 48 MiB string, twice with the check that it is UTF-8 — issue 22 measured 574 MB
 * for 60 such uploads). Everything the rules look at — fences, `#`, blanks, line breaks — is ASCII, and in
 * UTF-8 an ASCII byte is always that character, never part of another, so the rules run on the bytes and
 * only the frontmatter and the heading found are decoded.
 *
 * @throws {ApiError} as {@link readTextMetadata}.
 */
export function readTextFileMetadata(bytes: Uint8Array, markdown: boolean): FoundMetadata {
  const found: FoundMetadata = { authors: [] };
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const frontmatter = findFrontmatter(body);
  if (frontmatter !== undefined) {
    // The limit counts characters (UTF-16 units): a UTF-8 sequence decodes to at least a third as many.
    const byteLength = frontmatter.contentEnd - frontmatter.start;
    const source =
      byteLength > 3 * MAX_FRONTMATTER_BYTES
        ? undefined
        : new TextDecoder().decode(body.subarray(frontmatter.start, frontmatter.contentEnd));
    if (source === undefined || source.length > MAX_FRONTMATTER_BYTES) {
      throw pastLimit('frontmatter_bytes', `Frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes`);
    }
    const data = parseFrontmatter(source);
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
      const fields = data as Record<string, unknown>;
      found.authors = readAuthors(fields.author ?? fields.authors ?? fields.creator);
      found.title = typeof fields.title === 'string' ? fields.title : undefined;
      const description = fields.description ?? fields.summary;
      found.description = typeof description === 'string' ? description : undefined;
    }
  }
  if (found.title === undefined && markdown) {
    found.title = findHeading(body, frontmatter?.end ?? 0);
  }
  return found;
}

const [LF, CR, TAB, SPACE, HASH, DASH, DOT] = [10, 13, 9, 32, 35, 45, 46];

/**
 * The frontmatter at the start of `text`: an opening line `---`, then every line up to the first later line
 * that is `---` or `...` (trailing blanks allowed). Returns where its source starts and ends and where the
 * text after it begins. The same rule as
 * `/^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/`, in one pass.
 */
function findFrontmatter(text: Uint8Array): { start: number; contentEnd: number; end: number } | undefined {
  if (!isFence(text, 0, DASH)) return undefined;
  let position = 3;
  while (text[position] === SPACE || text[position] === TAB) position++;
  if (text[position] === CR) position++;
  if (text[position] !== LF) return undefined;
  const start = position + 1;
  // Each later line start (after a `\n` at or after `start`) may be the closing fence.
  for (let newline = text.indexOf(LF, start); newline !== -1; newline = text.indexOf(LF, newline + 1)) {
    const line = newline + 1;
    if (!isFence(text, line, DASH) && !isFence(text, line, DOT)) continue;
    let after = line + 3;
    while (text[after] === SPACE || text[after] === TAB) after++;
    if (after < text.length && text[after] !== LF && !(text[after] === CR && text[after + 1] === LF))
      continue;
    const contentEnd = newline > start && text[newline - 1] === CR ? newline - 1 : newline;
    const end = after >= text.length ? after : after + (text[after] === CR ? 2 : 1);
    return { start, contentEnd, end };
  }
  return undefined;
}

function isFence(text: Uint8Array, at: number, byte: number): boolean {
  return text[at] === byte && text[at + 1] === byte && text[at + 2] === byte;
}

/**
 * The text of the first ATX heading at or after `from` — what `/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/m` captures:
 * up to three spaces, one to six `#`, blanks, then the line without its trailing blanks and `#` — found by
 * one pass over the lines instead of that expression, which backtracks quadratically on a long line.
 */
function findHeading(text: Uint8Array, from: number): string | undefined {
  let start = from;
  while (start <= text.length) {
    let end = start;
    while (end < text.length && lineBreakAt(text, end) === 0) end++;
    const title = readHeading(text, start, end);
    if (title !== undefined) return title;
    start = end + (lineBreakAt(text, end) || 1);
  }
  return undefined;
}

function readHeading(text: Uint8Array, start: number, end: number): string | undefined {
  let position = start;
  while (position < end && position - start < 3 && text[position] === SPACE) position++;
  const hashes = position;
  while (position < end && text[position] === HASH) position++;
  const level = position - hashes;
  if (level < 1 || level > 6 || position >= end || (text[position] !== SPACE && text[position] !== TAB))
    return undefined;
  const blanks = position;
  while (position < end && (text[position] === SPACE || text[position] === TAB)) position++;
  // Blanks only: the expression gives its last blank to the title, if it has one to spare.
  if (position === end) return end - blanks >= 2 ? String.fromCharCode(text[end - 1] as number) : undefined;
  let last = end;
  while (last > position && (text[last - 1] === SPACE || text[last - 1] === TAB || text[last - 1] === HASH))
    last--;
  return new TextDecoder().decode(text.subarray(position, Math.max(last, position + 1)));
}

/**
 * The length in bytes of the line terminator at `at` — those of JavaScript's `.` and `$`: `\n`, `\r` (1),
 * U+2028, U+2029 (3: E2 80 A8, E2 80 A9) — or 0.
 */
function lineBreakAt(text: Uint8Array, at: number): number {
  const byte = text[at];
  if (byte === LF || byte === CR) return 1;
  return byte === 0xe2 && text[at + 1] === 0x80 && (text[at + 2] === 0xa8 || text[at + 2] === 0xa9) ? 3 : 0;
}

function parseFrontmatter(source: string): unknown {
  const document = parseDocument(source, { prettyErrors: false, uniqueKeys: false, schema: 'core' });
  if (document.errors.length > 0) {
    throw invalidFormat(`Frontmatter is not valid YAML: ${document.errors[0]?.message ?? 'parse error'}`);
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw invalidFormat(`Frontmatter cannot be read: ${(error as Error).message}`);
  }
}

function readAuthors(value: unknown): string[] {
  const entries = Array.isArray(value) ? value.slice(0, 50) : [value];
  const names: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') names.push(entry);
    else if (
      entry !== null &&
      typeof entry === 'object' &&
      typeof (entry as { name?: unknown }).name === 'string'
    ) {
      names.push((entry as { name: string }).name);
    }
  }
  return names;
}
