import { parseDocument } from 'yaml';
import { invalidFormat } from '../api-error.js';
import type { FoundMetadata } from './file-metadata.js';

/** Frontmatter larger than this is refused (real frontmatter is a few hundred bytes). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Alias expansions allowed while reading frontmatter: stops "billion laughs" alias bombs. */
export const MAX_ALIAS_COUNT = 50;

/**
 * Read author and title of a Markdown or text file from its YAML frontmatter (`---` … `---` at the very
 * start): `author:` as a string, a list of strings, or `{ name }` (also a list of those; `authors:` too);
 * `title:`, else the first Markdown heading (`# Title`); `description:`/`summary:`.
 *
 * @throws {ApiError} `INVALID_FORMAT` for frontmatter that is not valid YAML, too large, or an alias bomb.
 */
export function readTextMetadata(text: string, markdown: boolean): FoundMetadata {
  const found: FoundMetadata = { authors: [] };
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(body);
  if (match) {
    const source = match[1] as string;
    if (source.length > MAX_FRONTMATTER_BYTES) {
      throw invalidFormat(`Frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes`);
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
    const rest = match ? body.slice(match[0].length) : body;
    found.title = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(rest)?.[1];
  }
  return found;
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
