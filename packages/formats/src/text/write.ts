import type { AuthorFields } from '../author-fields.js';
import { concat, utf8 } from '../bytes.js';

/** The top-level keys replaced: the server reads `author`, else `authors` (else `creator`, left alone). */
const AUTHOR_KEYS = ['author', 'authors'];
const TITLE_KEYS = ['title'];
const BOM = [0xef, 0xbb, 0xbf];

/**
 * Write `author:` (and `title:` when given) into the YAML frontmatter of a Markdown or text file, as the
 * server reads it (`server/src/metadata/text-metadata.ts`: a `---` line at the very start, up to a `---` or
 * `...` line). Existing top-level `author`/`authors` (and `title`) entries are replaced where the first of
 * them stood — their whole value, nested lines included; every other line of the frontmatter and all of
 * the body stay byte for byte. Without frontmatter, one is put before the text (after a BOM, if any). Values
 * are YAML double-quoted strings, so no name can turn into another type or break the YAML; line breaks
 * follow the file's (CRLF or LF).
 *
 * Done by lines rather than with a YAML library so that the package has no dependency (it loads unchanged
 * in browsers) and so that nothing but these keys is rewritten; a frontmatter that is not valid YAML stays
 * as invalid as it was (the server then refuses it with `INVALID_FORMAT`).
 */
export function embedTextFrontmatter(bytes: Uint8Array, fields: AuthorFields): Uint8Array<ArrayBuffer> {
  const bomLength = BOM.every((byte, index) => bytes[index] === byte) ? 3 : 0;
  const text = new TextDecoder().decode(bytes.subarray(bomLength));
  const frontmatter = findFrontmatter(text);
  if (frontmatter === undefined) {
    const newline = /\r\n/.test(text.slice(0, text.indexOf('\n') + 1)) ? '\r\n' : '\n';
    const block = ['---', ...entries(fields), '---', ''].join(newline);
    return concat([bytes.subarray(0, bomLength), utf8(block), bytes.subarray(bomLength)]);
  }
  const { contentStart, fenceStart, newline } = frontmatter;
  // Each line with its own line break, so that the lines kept are kept byte for byte.
  const lines = text.slice(contentStart, fenceStart).match(/[^\n]*\n/g) ?? [];
  const edited = replaceKeys(lines, fields, newline);
  return concat([
    bytes.subarray(0, bomLength),
    utf8(text.slice(0, contentStart)),
    utf8(edited.join('')),
    utf8(text.slice(fenceStart)),
  ]);
}

/** The frontmatter: where its content starts, where its closing `---`/`...` line starts, its line break. */
function findFrontmatter(
  text: string,
): { contentStart: number; fenceStart: number; newline: string } | undefined {
  const opening = /^---[ \t]*(\r?\n)/.exec(text);
  if (opening === null) return undefined;
  const newline = opening[1] as string;
  const contentStart = opening[0].length;
  const fence = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
  for (let at = contentStart; at !== 0; ) {
    const next = text.indexOf('\n', at) + 1;
    if (fence.test(text.slice(at, next === 0 ? undefined : next)))
      return { contentStart, fenceStart: at, newline };
    at = next;
  }
  return undefined;
}

/** The lines (each with its line break) with the author (and title) entries replaced, or added at the end. */
function replaceKeys(lines: string[], fields: AuthorFields, newline: string): string[] {
  const out: string[] = [];
  let authorWritten = false;
  let titleWritten = fields.title === undefined;
  for (let index = 0; index < lines.length; ) {
    const key = topLevelKey(lines[index] as string);
    const isAuthor = key !== undefined && AUTHOR_KEYS.includes(key);
    const isTitle = key !== undefined && fields.title !== undefined && TITLE_KEYS.includes(key);
    if (!isAuthor && !isTitle) {
      out.push(lines[index] as string);
      index++;
      continue;
    }
    if (isAuthor && !authorWritten) {
      out.push(...entries({ authors: fields.authors, title: undefined }));
      authorWritten = true;
    }
    if (isTitle && !titleWritten) {
      out.push(...entries({ authors: [], title: fields.title }));
      titleWritten = true;
    }
    index = valueEnd(lines, index);
  }
  if (!authorWritten) out.push(...entries({ authors: fields.authors, title: undefined }));
  if (!titleWritten) out.push(...entries({ authors: [], title: fields.title }));
  return out.map((line) => (line.endsWith('\n') ? line : line + newline));
}

/** The key of a top-level mapping entry (`author:`, `"author":`, `'author':`), else `undefined`. */
function topLevelKey(line: string): string | undefined {
  const match = /^(?:([A-Za-z_][\w-]*)|"([^"\\]*)"|'([^']*)')[ \t]*:(?:[ \t\r\n]|$)/.exec(line);
  return match === null ? undefined : (match[1] ?? match[2] ?? match[3]);
}

/**
 * The index after the value of the entry on line `start`: the lines that belong to it are indented, or
 * sequence items at column 0 (`- name`, YAML's compact form); blank and comment lines belong to it only
 * when more of it follows.
 */
function valueEnd(lines: string[], start: number): number {
  let end = start + 1;
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^[ \t]/.test(line) && line.trim() !== '' && !line.trim().startsWith('#')) end = index + 1;
    else if (/^-(?:[ \t\r\n]|$)/.test(line)) end = index + 1;
    else if (line.trim() === '' || line.trim().startsWith('#')) continue;
    else break;
  }
  return end;
}

/** The YAML lines of the fields: `author: "…"` (a list for several) and `title: "…"`. */
function entries(fields: AuthorFields): string[] {
  const lines: string[] = [];
  if (fields.authors.length === 1) lines.push(`author: ${yamlString(fields.authors[0] as string)}`);
  else if (fields.authors.length > 1) {
    lines.push('author:', ...fields.authors.map((name) => `  - ${yamlString(name)}`));
  }
  if (fields.title !== undefined) lines.push(`title: ${yamlString(fields.title)}`);
  return lines;
}

/**
 * A YAML double-quoted string: `"` and `\` escaped, and every character YAML would not keep as it is
 * (controls, line and paragraph separators, BOM, NEL) as a `\uXXXX` escape.
 */
export function yamlString(text: string): string {
  const escaped = text
    .replace(/[\\"]/g, (char) => `\\${char}`)
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return `"${escaped}"`;
}
