// Where today's browsers build another tree than the standard, on markup the standard's tree would have
// signed (issue 34): the tree builder of `siegel-page/2` (current-parser.ts extends this one) records each
// such tag in the record of recording-parser.ts, with `departs`, and page/coverage.ts refuses to sign it —
// the hash is the standard's reading, which a reader in that browser is not shown. Found by comparing
// DOMParser's `main.innerHTML` in Chromium 156 and Firefox ESR 153 with ours; each shape is pinned in
// test/page-hash/parser-edges-chromium.test.ts and …-firefox.test.ts (test/support/parser-edge-cases.ts).
//
// Chromium, inside `<template>` (its tree builder asks "parsing template contents?" where the standard
// asks other questions):
// - `<form>` in a table mode: the standard ignores it while a template is open; Chromium inserts an empty
//   form (`<template><caption></caption><form>`).
// - `</form>`: the standard closes the form in scope with everything above it; Chromium reads it as "any
//   other end tag", which stops at the first special element (`<template><form><dl></form>x` leaves `x`
//   in the `<dl>`).
// - "In template" reads `<title>`, `<base>`, `<basefont>`, `<bgsound>`, `<noframes>` by the "in head" rules
//   and stays "in template"; Chromium does so only for `<link>`, `<meta>`, `<script>`, `<style>` and
//   switches the template to "in body" for these five. A table tag after them (`<template><title>t</title>
//   <tr><td>x`) then makes table elements in the standard and is ignored by Chromium, which in turn keeps a
//   `<table>` that the standard's column-group mode ignores (`…<col><table>`); `</p>` and `</br>` make
//   elements "in body" only.
//
// Firefox counts `<dialog>` and `<search>` as special elements (the standard lists `search`, not `dialog`;
// parse5 and Chromium neither). The special category stops three walks down the stack: the adoption
// agency's furthest block (`<em><dialog>a</em>x`: Firefox moves `x` into the closed dialog, so it is not
// shown), "any other end tag" (`<span><dialog>a</span>x`) and the `<li>`, `<dd>`, `<dt>` start tags
// (`<li><dialog>a<li>b`). Recorded wherever our walk passes an open one.
//
// parse5 pins: its protected methods and its stack's queries are wrapped here, so core depends on an exact
// parse5 version.
import {
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  html,
  InsertionMode,
  type ParserOptions,
  Token,
} from 'parse5';
import {
  type BrowserDeparture,
  type IgnoredStartTag,
  type ParserInternals,
  RecordingParser,
} from './recording-parser.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type TagToken = Token.TagToken;

const $ = html.TAG_ID;
const MODE = InsertionMode;

/** The parts of parse5's stack of open elements read and wrapped here. */
interface DepartureStack {
  items: ParentNode[];
  tagIDs: number[];
  stackTop: number;
  hasInScope(tagID: number): boolean;
  indexOfTopmost(tagID: number): number;
  hasSpecialElementAbove(idx: number): boolean;
  hasListItemBoundaryAbove(idx: number): boolean;
}

/** The modes whose start tags end in the "in table" rules, where `<form>` is ignored while a template is open. */
const TABLE_MODES = new Set<number>([MODE.IN_TABLE, MODE.IN_TABLE_BODY, MODE.IN_ROW]);

/** Head tags that Chromium's "in template" mode reads "in body". */
const CHROMIUM_IN_BODY_HEAD_TAGS = new Set<number>([$.TITLE, $.BASE, $.BASEFONT, $.BGSOUND, $.NOFRAMES]);

/** Start tags for which "in template" chooses a table mode, and which "in body" ignores. */
const TABLE_MODE_TAGS = new Set<number>([
  $.CAPTION,
  $.COL,
  $.COLGROUP,
  $.TBODY,
  $.TFOOT,
  $.THEAD,
  $.TR,
  $.TD,
  $.TH,
]);

/** End tags that "in body" makes an element of (`</p>` → `<p></p>`, `</br>` → `<br>`); "in template" ignores them. */
const IN_BODY_END_TAG_ELEMENTS = new Set<number>([$.P, $.BR]);

/** The elements Firefox counts as special beyond parse5's (and Chromium's) list. */
const FIREFOX_SPECIALS = new Set<number>([$.DIALOG, $.SEARCH]);

/** parse5's tree builder plus the record of ignored start tags, recording the browser departures too. */
export class DepartureRecordingParser extends RecordingParser {
  /** Templates still "in template" after one of `CHROMIUM_IN_BODY_HEAD_TAGS`: Chromium reads them "in body". */
  readonly #chromiumInBody = new WeakSet<ParentNode>();
  /** The tag being processed, for the record made by a wrapped stack query; cleared once it is recorded. */
  #tag: TagToken | null = null;

  constructor(options: ParserOptions<DefaultTreeAdapterMap>) {
    super(options);
    this.#watchFirefoxSpecials(this.#self.openElements as unknown as DepartureStack);
  }

  get #self(): ParserInternals {
    return this as unknown as ParserInternals;
  }

  override onStartTag(token: TagToken): void {
    const self = this.#self;
    if (self.insertionMode === MODE.IN_TEMPLATE) this.#startTagInTemplate(token);
    const recorded = this.ignoredStartTags.length;
    this.#tag = token;
    super.onStartTag(token);
    this.#tag = null;
    // A `<form>` ignored in a table mode with a template open: Chromium inserts an empty form there.
    if (token.tagID !== $.FORM || this.ignoredStartTags.length === recorded) return;
    const last = this.ignoredStartTags.at(-1) as IgnoredStartTag;
    if (TABLE_MODES.has(last.mode as number) && self.tmplInsertionModeStack.length > 0)
      last.departs = 'chromium-template-form';
  }

  /** A start tag "in template": watch for the head tags Chromium reads "in body", and the table tags after them. */
  #startTagInTemplate(token: TagToken): void {
    const template = this.#self.openElements.current;
    if (template === undefined) return;
    if (CHROMIUM_IN_BODY_HEAD_TAGS.has(token.tagID)) this.#chromiumInBody.add(template);
    else if (TABLE_MODE_TAGS.has(token.tagID) && this.#chromiumInBody.has(template))
      this.#depart(token, template, 'chromium-template-in-body');
  }

  override onEndTag(token: TagToken): void {
    const self = this.#self;
    if (self.insertionMode === MODE.IN_TEMPLATE) {
      const template = self.openElements.current;
      if (IN_BODY_END_TAG_ELEMENTS.has(token.tagID) && template && this.#chromiumInBody.has(template))
        this.#depart(token, template, 'chromium-template-in-body');
    } else if (token.tagID === $.FORM && self.tmplInsertionModeStack.length > 0)
      this.#formEndTagInTemplate(token);
    this.#tag = token;
    super.onEndTag(token);
    this.#tag = null;
  }

  /** `</form>` with a template open: recorded when a special element is open above the form in scope. */
  #formEndTagInTemplate(token: TagToken): void {
    const open = this.#self.openElements as unknown as DepartureStack;
    if (!open.hasInScope($.FORM)) return;
    const form = open.indexOfTopmost($.FORM);
    for (let i = open.stackTop; i > form; i--) {
      const element = open.items[i] as Element;
      if (html.SPECIAL_ELEMENTS[element.namespaceURI as html.NS]?.has(open.tagIDs[i] as html.TAG_ID)) {
        this.#depart(token, element, 'chromium-template-form-end');
        return;
      }
    }
  }

  /** "Any other end tag" and the list items ask the stack whether a special element is open above one. */
  #watchFirefoxSpecials(open: DepartureStack): void {
    const specialAbove = open.hasSpecialElementAbove.bind(open);
    const boundaryAbove = open.hasListItemBoundaryAbove.bind(open);
    const passAbove = (idx: number) => {
      for (let i = idx + 1; i <= open.stackTop; i++) this.#pass(open.items[i] as Element, open.tagIDs[i]);
      return false;
    };
    open.hasSpecialElementAbove = (idx) => specialAbove(idx) || passAbove(idx);
    open.hasListItemBoundaryAbove = (idx) => boundaryAbove(idx) || passAbove(idx);
  }

  /** The adoption agency asks this of each element above the formatting element, up to the first special one. */
  override _isSpecialElement(element: Element, id: html.TAG_ID): boolean {
    if (super._isSpecialElement(element, id)) return true;
    this.#pass(element, id);
    return false;
  }

  /** A walk down the stack passes `element`: record the tag being processed if Firefox would stop there. */
  #pass(element: Element, id: number | undefined): void {
    const token = this.#tag;
    if (token === null || !FIREFOX_SPECIALS.has(id as number) || element.namespaceURI !== html.NS.HTML)
      return;
    this.#tag = null;
    this.#depart(token, element, 'firefox-special');
  }

  #depart(token: TagToken, within: ParentNode, departs: BrowserDeparture): void {
    const endTag = token.type === Token.TokenType.END_TAG;
    this.record(token, within, { departs, ...(endTag ? { endTag: true as const } : {}) });
  }
}
