// Reading a metadata block (text-blocks.ts) in its syntax — YAML (`yaml`), TOML (`smol-toml`), JSON, a Pandoc
// title block, MultiMarkdown lines — and taking its author, title and description, keys matched
// case-insensitively, as Hugo, Python-Markdown and MultiMarkdown match them.

import { parse as parseToml, TomlError } from 'smol-toml';
import { parseDocument } from 'yaml';
import { selectAuthors } from '../author.js';
import type { FoundMetadata } from '../file-metadata.js';
import { damaged } from '../format-error.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';
import type { MetadataBlock } from './blocks.js';

/** Where authors are looked for in YAML, TOML and JSON frontmatter: top level, then Hugo's `params`, Zola's
 * `extra` and `taxonomies`; at each, `author`, then `authors`, then `creator` (Pandoc's EPUB metadata). */
const AUTHOR_TABLES = ['', 'params', 'extra', 'taxonomies'];
const AUTHOR_KEYS = ['author', 'authors', 'creator'];
const DESCRIPTION_KEYS = ['description', 'summary', 'abstract'];
/** Entries read from one author list (real ones: a handful). */
const MAX_AUTHOR_ENTRIES = 50;

/**
 * Author, title and description of a metadata block whose text is `source`. `authorSource` names the syntax
 * and the key as the file spells it: `yaml:author`, `toml:params.author`, `json:Author`, `mmd:Author`,
 * `pandoc:title-block`.
 *
 * @throws {FormatError} for frontmatter that is not valid in its syntax, an alias bomb, or
 *   (with `limit: 'frontmatter_nesting'`) JSON or TOML nested past the limit.
 */
export function readBlockFields(block: MetadataBlock, source: string): FoundMetadata {
  switch (block.syntax) {
    case 'pandoc':
      return readTitleBlock(source);
    case 'mmd':
      return readMultiMarkdown(source) ?? { authors: [] };
    case 'toml':
      return readStructured('toml', parseTomlFrontmatter(source));
    case 'json':
      return readStructured('json', parseJsonFrontmatter(source));
    case 'yaml': {
      if (block.delimiter === 'plain-fence' && source.trimStart().startsWith('{')) {
        // gray-matter writes JSON between `---` fences (`language: 'json'`): JSON is YAML too, but say so.
        const json = tryJson(source);
        if (json !== undefined) return readStructured('json', json);
      }
      return readStructured('yaml', parseYamlFrontmatter(source));
    }
  }
}

function parseYamlFrontmatter(source: string): unknown {
  const document = parseDocument(source, { prettyErrors: false, uniqueKeys: false, schema: 'core' });
  if (document.errors.length > 0) {
    throw damaged('text', `Frontmatter is not valid YAML: ${document.errors[0]?.message ?? 'parse error'}`);
  }
  try {
    return document.toJS({ maxAliasCount: FORMAT_LIMITS.yaml_aliases });
  } catch (error) {
    throw damaged('text', `Frontmatter cannot be read: ${(error as Error).message}`);
  }
}

function parseTomlFrontmatter(source: string): unknown {
  try {
    return parseToml(source, { maxDepth: FORMAT_LIMITS.frontmatter_nesting });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? '';
    if (error instanceof TomlError && /nested/.test(message)) throw tooDeep('TOML');
    throw damaged(
      'text',
      `Frontmatter is not valid TOML: ${message.replace(/^Invalid TOML document: /, '')}`,
    );
  }
}

function parseJsonFrontmatter(source: string): unknown {
  checkJsonNesting(source);
  try {
    return JSON.parse(source);
  } catch (error) {
    throw damaged('text', `Frontmatter is not valid JSON: ${(error as Error).message}`);
  }
}

/** `source` as JSON when it is JSON (within the nesting limit), else `undefined`. */
function tryJson(source: string): unknown {
  checkJsonNesting(source);
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}

/** Refuse JSON whose arrays and objects nest deeper than the limit (counted outside strings, in one pass). */
function checkJsonNesting(source: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < source.length; index++) {
    const char = source.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > FORMAT_LIMITS.frontmatter_nesting) throw tooDeep('JSON');
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
}

function tooDeep(syntax: string) {
  const limit = FORMAT_LIMITS.frontmatter_nesting;
  return pastLimit('frontmatter_nesting', `The ${syntax} frontmatter nests more than ${limit} levels deep`);
}

/** Author, title and description of parsed YAML, TOML or JSON frontmatter. */
function readStructured(syntax: 'yaml' | 'toml' | 'json', data: unknown): FoundMetadata {
  const found: FoundMetadata = { authors: [] };
  if (!isRecord(data)) return found;
  search: for (const table of AUTHOR_TABLES) {
    const [tableKey, fields] = table === '' ? ['', data] : entryOf(data, table);
    if (!isRecord(fields)) continue;
    for (const key of AUTHOR_KEYS) {
      const [written, value] = entryOf(fields, key);
      const source = `${syntax}:${tableKey === '' ? '' : `${tableKey}.`}${written}`;
      const keys = authorKeys(value);
      if (keys.length > 0) {
        // Not signed, not even the names beside a key: the file would be signed with fewer authors than it has.
        found.authorKeys ??= { source, keys };
        continue;
      }
      const names = authorNames(value);
      if (selectAuthors(names).length === 0) continue;
      found.authors = names;
      found.authorSource = source;
      break search;
    }
  }
  found.title = textOf(entryOf(data, 'title')[1]);
  found.description = DESCRIPTION_KEYS.map((key) => textOf(entryOf(data, key)[1])).find(Boolean);
  return found;
}

/**
 * A bare lowercase word (`ana`, `jane_doe`, `slorber`) in an author field, where Jekyll (`_data/authors.yml`,
 * jekyll-seo-tag), Docusaurus (`authors.yml`: `authors: ana`, `authors: [ana, bo]`), Hugo and Zola
 * (taxonomy terms) put the key of an entry in another file. The name is in that file, which the server does
 * not have: such a key is not signed as a name.
 */
const AUTHOR_KEY = /^(?=.*\p{Ll})[\p{Ll}\p{Nd}_-]+$/u;

/** The entries of an author field that are keys ({@link AUTHOR_KEY}); people written as objects are names. */
function authorKeys(value: unknown): string[] {
  const entries = Array.isArray(value) ? value.slice(0, MAX_AUTHOR_ENTRIES) : [value];
  return entries.filter(
    (entry): entry is string => typeof entry === 'string' && AUTHOR_KEY.test(entry.trim()),
  );
}

/**
 * The names in an author field: a string, `{ name }` (Jekyll, Docusaurus, Quarto: `name` itself may be
 * `{ literal }` or `{ given, family }`), CSL's `{ given, family }`, Pandoc EPUB's `{ role, text }` (role
 * `author`/`aut` or none), or a list of those; an Obsidian link `[[Name]]` (its Web Clipper writes them)
 * names its note.
 */
function authorNames(value: unknown): string[] {
  const entries = Array.isArray(value) ? value.slice(0, MAX_AUTHOR_ENTRIES) : [value];
  const names: string[] = [];
  for (const entry of entries) {
    const name = typeof entry === 'string' ? entry : isRecord(entry) ? personName(entry) : undefined;
    if (name !== undefined) names.push(unlink(name));
  }
  return names;
}

function personName(person: Record<string, unknown>, depth = 0): string | undefined {
  const name = entryOf(person, 'name')[1];
  if (typeof name === 'string') return name;
  if (isRecord(name) && depth < 2) return personName(name, depth + 1);
  const literal = entryOf(person, 'literal')[1];
  if (typeof literal === 'string') return literal;
  const parts = [entryOf(person, 'given')[1], entryOf(person, 'family')[1]].filter(
    (part) => typeof part === 'string',
  );
  if (parts.length > 0) return parts.join(' ');
  const role = entryOf(person, 'role')[1];
  const text = entryOf(person, 'text')[1];
  const isAuthor = role === undefined || (typeof role === 'string' && /^(author|aut)$/i.test(role));
  return isAuthor && typeof text === 'string' ? text : undefined;
}

/** `[[Folder/Note#Heading|Alias]]` → `Note`; anything else as it is. */
function unlink(name: string): string {
  const link = /^\s*\[\[([^\]|#]*)[^\]]*\]\]\s*$/.exec(name)?.[1];
  return link === undefined ? name : (link.split('/').pop() ?? link);
}

/**
 * A Pandoc title block: `% title`, `% authors` (separated by `;`, or on continuation lines), `% date`; a
 * field's continuation lines start with a blank.
 */
function readTitleBlock(source: string): FoundMetadata {
  const fields: string[][] = [];
  for (const line of source.split(/\r?\n|\r/)) {
    if (line.startsWith('%')) fields.push([line.slice(1)]);
    else fields.at(-1)?.push(line);
  }
  const authors = (fields[1] ?? []).flatMap((part) => part.split(';')).map((name) => name.trim());
  const title = fields[0]?.map((part) => part.trim()).join(' ');
  return {
    authors: authors.filter((name) => name !== ''),
    ...(selectAuthors(authors).length > 0 ? { authorSource: 'pandoc:title-block' } : {}),
    title: title === '' ? undefined : title,
  };
}

/**
 * MultiMarkdown (and Python-Markdown meta, Pelican) `Key: value` lines, each value continued on indented
 * lines, and Logseq's `key:: value` page properties. Keys are matched case-insensitively without their
 * blanks (MultiMarkdown's rule); every line of an author key is a name, as is each part of one separated by
 * `;` (Pandoc's MultiMarkdown writer joins authors so); Pelican's `Authors:` is also split at commas when it
 * has no `;`, and a Logseq value of `[[page]]` links at its commas. `undefined` when a line is neither a
 * `Key: value` line nor a continuation.
 */
function readMultiMarkdown(source: string): FoundMetadata | undefined {
  const values = new Map<string, { key: string; syntax: string; lines: string[] }>();
  let current: string[] | undefined;
  for (const line of source.split(/\r?\n|\r/)) {
    if (line.trim() === '') continue;
    if (/^[ \t]/.test(line) && current !== undefined) {
      current.push(line.trim());
      continue;
    }
    const match = /^([A-Za-z0-9][A-Za-z0-9 _.-]*)(::?)[ \t]*(.*)$/.exec(line);
    if (match === null) return undefined;
    const [, key = '', colons, value = ''] = match;
    const name = key.toLowerCase().replace(/ /g, '');
    const entry = values.get(name) ?? { key, syntax: colons === '::' ? 'logseq' : 'mmd', lines: [] };
    values.set(name, entry);
    current = entry.lines;
    if (value.trim() !== '') current.push(value.trim());
  }
  const found: FoundMetadata = { authors: [] };
  for (const name of AUTHOR_KEYS) {
    const entry = values.get(name);
    if (entry === undefined) continue;
    const names = entry.lines.flatMap((line) => splitNames(line, name, entry.syntax));
    if (selectAuthors(names).length === 0) continue;
    found.authors = names;
    found.authorSource = `${entry.syntax}:${entry.key}`;
    break;
  }
  found.title = values.get('title')?.lines.join(' ') || undefined;
  found.description = DESCRIPTION_KEYS.map((key) => values.get(key)?.lines.join(' ')).find(Boolean);
  return found;
}

function splitNames(line: string, key: string, syntax: string): string[] {
  if (syntax === 'logseq' && /^\[\[[^\]]*\]\](?:\s*,\s*\[\[[^\]]*\]\])*$/.test(line)) {
    return line.split(',').map((link) => unlink(link));
  }
  const separator = line.includes(';') || key !== 'authors' ? ';' : ',';
  return line.split(separator).map((part) => unlink(part.trim()));
}

/** `[key as the object spells it, value]` for the first key equal to `name` ignoring case. */
function entryOf(object: Record<string, unknown>, name: string): [string, unknown] {
  if (Object.hasOwn(object, name)) return [name, object[name]];
  for (const key of Object.keys(object)) {
    if (key.toLowerCase() === name) return [key, object[key]];
  }
  return ['', undefined];
}

/** A title or description: a string (not blank), or a number (`title: 1984` is a number in YAML). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
