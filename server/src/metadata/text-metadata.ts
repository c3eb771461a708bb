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
  const found: FoundMetadata = { authors: [] };
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const frontmatter = findFrontmatter(body);
  if (frontmatter !== undefined) {
    if (frontmatter.source.length > MAX_FRONTMATTER_BYTES) {
      throw pastLimit('frontmatter_bytes', `Frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes`);
    }
    const data = parseFrontmatter(frontmatter.source);
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

/**
 * The frontmatter at the start of `text`: an opening line `---`, then every line up to the first later line
 * that is `---` or `...` (trailing blanks allowed). Returns its source and where the text after it begins.
 * The same rule as `/^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/`, in one pass.
 */
function findFrontmatter(text: string): { source: string; end: number } | undefined {
  if (!text.startsWith('---')) return undefined;
  let position = 3;
  while (text[position] === ' ' || text[position] === '\t') position++;
  if (text[position] === '\r') position++;
  if (text[position] !== '\n') return undefined;
  const start = position + 1;
  // Each later line start (after a `\n` at or after `start`) may be the closing fence.
  for (let newline = text.indexOf('\n', start); newline !== -1; newline = text.indexOf('\n', newline + 1)) {
    const line = newline + 1;
    const fence = text.slice(line, line + 3);
    if (fence !== '---' && fence !== '...') continue;
    let after = line + 3;
    while (text[after] === ' ' || text[after] === '\t') after++;
    if (after < text.length && text[after] !== '\n' && !(text[after] === '\r' && text[after + 1] === '\n'))
      continue;
    const contentEnd = newline > start && text[newline - 1] === '\r' ? newline - 1 : newline;
    const end = after >= text.length ? after : after + (text[after] === '\r' ? 2 : 1);
    return { source: text.slice(start, contentEnd), end };
  }
  return undefined;
}

/**
 * The text of the first ATX heading at or after `from` — what `/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/m` captures:
 * up to three spaces, one to six `#`, blanks, then the line without its trailing blanks and `#` — found by
 * one pass over the lines instead of that expression, which backtracks quadratically on a long line.
 */
function findHeading(text: string, from: number): string | undefined {
  let start = from;
  while (start <= text.length) {
    let end = start;
    while (end < text.length && !isLineBreak(text.charCodeAt(end))) end++;
    const title = readHeading(text, start, end);
    if (title !== undefined) return title;
    start = end + 1;
  }
  return undefined;
}

function readHeading(text: string, start: number, end: number): string | undefined {
  let position = start;
  while (position < end && position - start < 3 && text[position] === ' ') position++;
  const hashes = position;
  while (position < end && text[position] === '#') position++;
  const level = position - hashes;
  if (level < 1 || level > 6 || position >= end || (text[position] !== ' ' && text[position] !== '\t'))
    return undefined;
  const blanks = position;
  while (position < end && (text[position] === ' ' || text[position] === '\t')) position++;
  // Blanks only: the expression gives its last blank to the title, if it has one to spare.
  if (position === end) return end - blanks >= 2 ? text[end - 1] : undefined;
  let last = end;
  while (last > position && (text[last - 1] === ' ' || text[last - 1] === '\t' || text[last - 1] === '#'))
    last--;
  return text.slice(position, Math.max(last, position + 1));
}

/** The line terminators of JavaScript's `.` and `$` (`\n`, `\r`, U+2028, U+2029). */
function isLineBreak(code: number): boolean {
  return code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
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
