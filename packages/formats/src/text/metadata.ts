import type { FoundMetadata } from '../file-metadata.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import { findMetadataBlock, type MetadataBlock } from './blocks.js';
import { readTextUnits, type TextUnits } from './encoding.js';
import { readBlockFields } from './fields.js';

/** A metadata block larger than this many characters is refused (real ones are a few hundred bytes). */
export const MAX_FRONTMATTER_BYTES = FORMAT_LIMITS.frontmatter_bytes;
/** Alias expansions allowed while reading YAML frontmatter: stops "billion laughs" alias bombs. */
export const MAX_ALIAS_COUNT = FORMAT_LIMITS.yaml_aliases;

/**
 * Read author, title and description of a Markdown or text file from the metadata block it starts with
 * (`findMetadataBlock`): YAML, TOML or JSON frontmatter, a Pandoc title block, or MultiMarkdown
 * `Key: value` lines (`readBlockFields`: `author`, `authors`, `creator` in any case, also in Hugo's `params`
 * and Zola's `extra`). The title, when the block names none: the first Markdown heading (`# Title`) after
 * fenced frontmatter (from the start otherwise). Blocks and heading are found by one pass over the lines
 * (no backtracking regular expression), so reading is linear in the file; only the block (at most 64 KiB)
 * is parsed.
 *
 * @throws {FormatError} for frontmatter that is not valid in its syntax, too large, too deeply
 *   nested, or an alias bomb.
 */
export function readTextMetadata(text: string, markdown: boolean): FoundMetadata {
  return readTextFileMetadata(new TextEncoder().encode(text), markdown);
}

/**
 * {@link readTextMetadata} on the file's bytes, as uploaded — UTF-8, or UTF-16 after its byte order mark
 * (`checkTextEncoding` has checked them) — never decoded whole (a 24 MiB file of prose would be a 48 MiB
 * string, twice with the check that it is UTF-8 — issue 22 measured 574 MB for 60 such uploads): the rules
 * run on its code units (`readTextUnits`) and only the block and the heading found are decoded.
 *
 * @throws {FormatError} as {@link readTextMetadata}.
 */
export function readTextFileMetadata(bytes: Uint8Array, markdown: boolean): FoundMetadata {
  const text = readTextUnits(bytes);
  const block = findMetadataBlock(text);
  const found: FoundMetadata =
    block === undefined ? { authors: [] } : readBlockFields(block, decodeBlock(text, block));
  if (found.title === undefined && markdown) {
    found.title = findHeading(text, block !== undefined && block.delimiter !== 'lines' ? block.end : 0);
  }
  return found;
}

/** The text of a block's content, refused past the limit (which counts characters: UTF-16 code units). */
function decodeBlock(text: TextUnits, block: MetadataBlock): string {
  const units = block.contentEnd - block.start;
  const source =
    units > MAX_FRONTMATTER_BYTES * text.unitsPerChar
      ? undefined
      : text.decode(block.start, block.contentEnd);
  if (source === undefined || source.length > MAX_FRONTMATTER_BYTES) {
    throw pastLimit('frontmatter_bytes', `Frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes`);
  }
  return source;
}

const [LF, CR, TAB, SPACE, HASH] = [10, 13, 9, 32, 35];

/**
 * The text of the first ATX heading at or after `from` — what `/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/m` captures:
 * up to three spaces, one to six `#`, blanks, then the line without its trailing blanks and `#` — found by
 * one pass over the lines instead of that expression, which backtracks quadratically on a long line.
 */
function findHeading({ units: text, decode }: TextUnits, from: number): string | undefined {
  let start = from;
  while (start <= text.length) {
    let end = start;
    while (end < text.length && lineBreakAt(text, end) === 0) end++;
    const title = readHeading(text, start, end, decode);
    if (title !== undefined) return title;
    start = end + (lineBreakAt(text, end) || 1);
  }
  return undefined;
}

function readHeading(
  text: Uint8Array | Uint16Array,
  start: number,
  end: number,
  decode: TextUnits['decode'],
): string | undefined {
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
  return decode(position, Math.max(last, position + 1));
}

/**
 * The length in code units of the line terminator at `at` — those of JavaScript's `.` and `$`: `\n`, `\r`
 * (1), U+2028, U+2029 (UTF-16: 1; UTF-8: 3, E2 80 A8 and E2 80 A9) — or 0.
 */
function lineBreakAt(text: Uint8Array | Uint16Array, at: number): number {
  const unit = text[at];
  if (unit === LF || unit === CR) return 1;
  if (text instanceof Uint16Array) return unit === 0x2028 || unit === 0x2029 ? 1 : 0;
  return unit === 0xe2 && text[at + 1] === 0x80 && (text[at + 2] === 0xa8 || text[at + 2] === 0xa9) ? 3 : 0;
}
