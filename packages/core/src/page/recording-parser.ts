// The tree builder that records what it ignores (used by html-parser.ts): parse5's Parser, unchanged in
// what it builds, plus the list of start tags that did not become elements (`ignoredStartTags`), which the markup
// rule of `siegel-page/2` checks (page/coverage.ts). `siegel-page/1` parses with this one as it is; the
// tree builder of today's standard (current-parser.ts) extends it. Separate from both because the record
// is one concern shared by every spec, and because it defines the parse5 internals the subclasses reach.
//
// parse5 pins: its protected methods are overridden here, so core depends on an exact parse5 version.
import {
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  type defaultTreeAdapter,
  html,
  Parser,
  type ParserOptions,
  type Token,
  type Tokenizer,
} from 'parse5';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type TagToken = Token.TagToken;

const $ = html.TAG_ID;

/**
 * Markup today's browsers build otherwise than the standard, where the standard's tree would be signed
 * (recorded by current-parser.ts): `chromium-template-form` a `<form>` in a table inside a `<template>`
 * (Chromium inserts an empty form, the standard ignores it); `chromium-template-form-end` a `</form>` in a
 * `<template>` with a special element open inside the form (Chromium ignores it, the standard closes the
 * form); `chromium-template-in-body` a table tag, `</p>` or `</br>` in a `<template>` whose first tag was
 * `<title>`, `<base>`, `<basefont>`, `<bgsound>` or `<noframes>` (Chromium reads such a template "in body");
 * `firefox-special` a tag whose handling crosses an open `<dialog>` or `<search>` (Firefox counts both as
 * special elements).
 */
export type BrowserDeparture =
  | 'chromium-template-form'
  | 'chromium-template-form-end'
  | 'chromium-template-in-body'
  | 'firefox-special';

/**
 * A start tag the parser did not turn into an element, and the node that was current when it came; or (with
 * `departs`) a tag a browser builds otherwise than the standard.
 */
export interface IgnoredStartTag {
  tagName: string;
  /** The open element the tag stood in (the insertion point): used to tell whether it lies in the signed element. */
  within: ParentNode;
  /** True for an `<html>` or `<body>` start tag whose attributes were added to the page's own element. */
  kept?: true;
  /** The insertion mode the parser was in when it ignored the tag (parse5's `InsertionMode`). */
  mode?: number;
  /** Set for a tag a browser builds otherwise than the standard; `within` is then the element that decides it. */
  departs?: BrowserDeparture;
  /** True when the tag is an end tag (only with `departs`). */
  endTag?: true;
  /** True for a `<selectedcontent>` whose own markup the parser's clone of the selected option replaced. */
  overwritten?: true;
  /** 1-based line and column of the tag's `<`, when the parse kept source locations. */
  line?: number;
  col?: number;
}

/** parse5's Parser internals that the new rules use. */
export interface ParserInternals {
  insertionMode: number;
  fosterParentingEnabled: boolean;
  framesetOk: boolean;
  headElement: Element | null;
  tmplInsertionModeStack: number[];
  tokenizer: Tokenizer;
  document: Document;
  openElements: {
    items: ParentNode[];
    tagIDs: number[];
    stackTop: number;
    current: ParentNode | undefined;
    currentTagId: number | undefined;
    hasInScope(tagID: number): boolean;
    hasInButtonScope(tagID: number): boolean;
    hasInTableScope(tagID: number): boolean;
    generateImpliedEndTags(): void;
    generateImpliedEndTagsWithExclusion(tagID: number): void;
    popUntilTagNamePopped(tagID: number): void;
    pop(): void;
  };
  treeAdapter: typeof defaultTreeAdapter;
  options: ParserOptions<DefaultTreeAdapterMap>;
  _reconstructActiveFormattingElements(): void;
  _insertElement(token: TagToken, namespaceURI: string): void;
  _appendElement(token: TagToken, namespaceURI: string): void;
  _closePElement(): void;
  _insertFakeElement(tagName: string, tagID: number): void;
}

const ADOPTING_TAGS = new Set<number>([$.HTML, $.BODY]);

/** The elements a stray `<html>` or `<body>` start tag can add attributes to: the root and the first `<body>`. */
function adoptionTargets(self: ParserInternals): Element[] {
  const root = self.openElements.items[0] as Element | undefined;
  const body = self.openElements.items[1] as Element | undefined;
  return [root, body].filter((element): element is Element => element !== undefined && 'attrs' in element);
}

/**
 * parse5's tree builder, recording every start tag that did not become an element (`siegel-page/1` parses
 * with this one: parse5 8.1 as released, plus the record).
 */
export class RecordingParser extends Parser<DefaultTreeAdapterMap> {
  readonly ignoredStartTags: IgnoredStartTag[] = [];
  #startTag: TagToken | null = null;
  #startTagMadeElement = false;

  override onStartTag(token: TagToken): void {
    this.#startTag = token;
    this.#startTagMadeElement = false;
    const self = this as unknown as ParserInternals;
    // A stray <html>/<body> start tag adds its attributes to the page's own element when it lacks them.
    const targets = ADOPTING_TAGS.has(token.tagID) && token.attrs.length > 0 ? adoptionTargets(self) : [];
    const before = targets.map((element) => element.attrs.length);
    super.onStartTag(token);
    this.#startTag = null;
    if (this.#startTagMadeElement) return;
    const kept = targets.some((element, i) => element.attrs.length !== before[i]);
    this.record(token, self.openElements.current ?? self.document, {
      mode: self.insertionMode,
      ...(kept ? { kept: true as const } : {}),
    });
  }

  /** Add `token` to the record, standing in `within`, with its source location when the parse keeps them. */
  protected record(token: TagToken, within: ParentNode, details: Partial<IgnoredStartTag>): void {
    const location = token.location;
    this.ignoredStartTags.push({
      tagName: token.tagName,
      within,
      ...details,
      ...(location ? { line: location.startLine, col: location.startCol } : {}),
    });
  }

  override _createElement(
    tagName: string,
    namespaceURI: html.NS,
    attrs: Token.Attribute[],
    intendedParent: ParentNode,
  ): Element {
    if (this.#startTag !== null && attrs === this.#startTag.attrs) this.#startTagMadeElement = true;
    return super._createElement(tagName, namespaceURI, attrs, intendedParent);
  }
}
