// The canonical parser of `siegel-page/2`: parse5's tokenizer and tree builder, brought up to today's WHATWG
// HTML parsing algorithm where parse5 8.1 lags behind, in our own subclasses (so the parser travels with
// @siegel/core and its browser bundle; nothing is patched in node_modules). What changes, against parse5:
//
// - Processing instructions (whatwg/html, June 2026): `<?target data>` is a ProcessingInstruction node
//   wherever a comment would go; a target that is not `[A-Za-z_][A-Za-z0-9_-]*`, or is `xml` /
//   `xml-stylesheet`, still makes a bogus comment. Tokenizer states in current-tokenizer.ts.
// - Relaxed `<select>` (customizable select, whatwg/html #10548): the "in select" and "in select in table"
//   insertion modes are gone; `select`, `option`, `optgroup`, `hr`, `input` and `</select>` get new "in
//   body" rules, so any markup inside a `<select>` becomes elements, as in Chromium and Firefox.
// - Scopes (page/parser-scope.ts): `select` bounds every scope but table scope, `template` bounds table
//   scope; in a row, `</tbody>` (`</tfoot>`, `</thead>`) not in table scope is ignored.
// - CDATA sections wherever the adjusted current node is not an HTML element (also in `<mi>`,
//   `<foreignObject>` …), not only outside integration points.
// - `<selectedcontent>`: after parsing, every `selectedcontent` inside a drop-down `select` holds a copy of
//   the selected option's content, as the DOM has it once the parser is done (see cloneSelectedContent).
// - The parser records every start tag it does not turn into an element (`ignoredStartTags`): the markup
//   rule of `siegel-page/2` refuses a signed element that contains one (see page/coverage.ts).
//
// parse5 pins: the subclasses override its protected methods, so core depends on an exact parse5 version.
//
// The rooms of the parser: current-tokenizer.ts (processing instructions, CDATA), recording-parser.ts (the
// record of ignored start tags, `siegel-page/1`'s tree builder), current-parser.ts (relaxed `<select>`,
// scopes), selected-content.ts, compact-tree.ts (memory of large pages). This file chooses and runs them.
import type { DefaultTreeAdapterTypes } from 'parse5';
import { compactTreeAdapter } from './compact-tree.js';
import { CurrentParser } from './current-parser.js';
import { type IgnoredStartTag, type ParserInternals, RecordingParser } from './recording-parser.js';
import { cloneSelectedContent } from './selected-content.js';

export { isProcessingInstruction, type ProcessingInstruction } from './current-tokenizer.js';
export type { IgnoredStartTag } from './recording-parser.js';

type Document = DefaultTreeAdapterTypes.Document;

/** The versions of the page-hash spec: each parses (and serializes) by its own rules. */
export type PageSpec = 'siegel-page/1' | 'siegel-page/2';

/** Options of {@link parseHtml}. */
export interface ParseHtmlOptions {
  /** `siegel-page/2` (default): today's standard. `siegel-page/1`: parse5 8.1 as released. */
  spec?: PageSpec;
  /** Keep source locations on nodes (and on ignored start tags). */
  locations?: boolean;
  /**
   * Parse as a browser with scripts on does (`<noscript>` is raw text), not as `DOMParser` (the hash's
   * reading). Only to compare what a reader is shown with what is signed (page/coverage.ts).
   */
  scripting?: boolean;
}

/** What {@link parseHtml} returns: the document and the start tags that made no element. */
export interface ParsedHtml {
  document: Document;
  ignoredStartTags: IgnoredStartTag[];
}

/**
 * Parse a whole document as `DOMParser` does (scripting disabled) under the rules of `spec`: for
 * `siegel-page/2` parse5 plus relaxed `<select>`, processing instructions and `<selectedcontent>`. Also
 * lists the start tags that did not become elements.
 *
 * @example
 * ```ts
 * const { document, ignoredStartTags } = parseHtml('<main><select><img src=x></select></main>');
 * ```
 */
export function parseHtml(text: string, options: ParseHtmlOptions = {}): ParsedHtml {
  // The compact tree only for large pages: it halves a 54 MB page's tree, but on ordinary pages (15–30 KB)
  // it made a cold signing run ≈ 25 % slower and its peak RSS ≈ 15 % higher (bench:sign-site, side by side).
  const tree = text.length >= COMPACT_TREE_AT ? compactTreeAdapter() : undefined;
  const parserOptions = {
    scriptingEnabled: options.scripting ?? false,
    sourceCodeLocationInfo: options.locations ?? false,
    ...(tree === undefined ? {} : { treeAdapter: tree.adapter }),
  };
  const current = options.spec !== 'siegel-page/1';
  const parser = current ? new CurrentParser(parserOptions) : new RecordingParser(parserOptions);
  const self = parser as unknown as ParserInternals;
  self.tokenizer.write(text, true);
  tree?.finish();
  const ignoredStartTags = parser.ignoredStartTags;
  if (parser instanceof CurrentParser && parser.sawSelect) {
    // Markup the page put in a <selectedcontent> is overwritten: like an ignored start tag, it is markup a
    // browser may still act on (Chromium fetches an <img> there first, Firefox keeps it) that the hash would
    // not cover. Listed after the parser's own, so a parse with locations lists them at the same indexes.
    for (const target of cloneSelectedContent(self.document)) {
      const location = target.sourceCodeLocation;
      ignoredStartTags.push({
        tagName: 'selectedcontent',
        within: target,
        overwritten: true,
        ...(location ? { line: location.startLine, col: location.startCol } : {}),
      });
    }
  }
  return { document: self.document, ignoredStartTags };
}

/** Pages of at least this many characters are parsed into the compact tree ({@link compactTreeAdapter}). */
const COMPACT_TREE_AT = 1 << 20;
