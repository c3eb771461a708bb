// The canonical parser of `siegel-page/2`: parse5's tokenizer and tree builder, brought up to today's WHATWG
// HTML parsing algorithm where parse5 8.1 lags behind, in our own subclasses (so the parser travels with
// @siegel/core and its browser bundle; nothing is patched in node_modules). What changes, against parse5:
//
// - Processing instructions (whatwg/html, June 2026): `<?target data>` is a ProcessingInstruction node
//   wherever a comment would go; a target that is not `[A-Za-z_][A-Za-z0-9_-]*`, or is `xml` /
//   `xml-stylesheet`, still makes a bogus comment. Tokenizer states below.
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
// parse5 pins: its protected methods are overridden here, so core depends on an exact parse5 version.
import {
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  defaultTreeAdapter,
  html,
  InsertionMode,
  Parser,
  type ParserOptions,
  Token,
  Tokenizer,
} from 'parse5';
import { applyCurrentScopes, type ScopedStack } from './parser-scope.js';
import { cloneSelectedContent } from './selected-content.js';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type TagToken = Token.TagToken;
type CommentToken = Token.CommentToken;

const $ = html.TAG_ID;
const NS = html.NS;

/** A `<?target data>` node. parse5's default tree has no such node; ours adds it beside comments. */
export interface ProcessingInstruction {
  nodeName: '#processing-instruction';
  target: string;
  data: string;
  parentNode: ParentNode | null;
  sourceCodeLocation?: Token.Location | null;
}

/** True for a processing instruction node of our tree. */
export function isProcessingInstruction(node: unknown): node is ProcessingInstruction {
  return (node as { nodeName?: string } | null)?.nodeName === '#processing-instruction';
}

/** A start tag the parser did not turn into an element, and the node that was current when it came. */
export interface IgnoredStartTag {
  tagName: string;
  /** The open element the tag stood in (the insertion point): used to tell whether it lies in the signed element. */
  within: ParentNode;
  /** True for an `<html>` or `<body>` start tag whose attributes were added to the page's own element. */
  kept?: true;
  /** True for a `<selectedcontent>` whose own markup the parser's clone of the selected option replaced. */
  overwritten?: true;
  /** 1-based line and column of the tag's `<`, when the parse kept source locations. */
  line?: number;
  col?: number;
}

/** A comment token that is really a processing instruction (the tree builder puts both in the same places). */
interface InstructionToken extends CommentToken {
  instruction?: { target: string; data: string };
}

// Code points the new tokenizer states look at.
const TAB = 0x09;
const LF = 0x0a;
const FF = 0x0c;
const SPACE = 0x20;
const QUESTION = 0x3f;
const GREATER = 0x3e;
const NUL = 0x00;
const EOF = -1;

// Our tokenizer states; parse5's own are 0–70.
const PI_OPEN = 1001;
const PI_TARGET = 1002;
const PI_BEFORE_DATA = 1003;
const PI_DATA = 1004;
const PI_DATA_QUESTION = 1005;
const BOGUS_COMMENT = 40; // parse5's State.BOGUS_COMMENT
const DATA = 0; // parse5's State.DATA

const isWhitespace = (cp: number) => cp === TAB || cp === LF || cp === FF || cp === SPACE;
const isAsciiAlpha = (cp: number) => (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
const isTargetStart = (cp: number) => isAsciiAlpha(cp) || cp === 0x5f;
const isTargetChar = (cp: number) => isTargetStart(cp) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2d;

/** parse5's Tokenizer internals that the processing-instruction states use. */
interface TokenizerInternals {
  state: number;
  currentToken: Token.Token | null;
  _flushRun(text: string): void;
  _createCommentToken(offset: number): void;
  _stateBogusComment(cp: number): void;
  _emitEOFToken(): void;
  emitCurrentComment(token: CommentToken): void;
  getCurrentLocation(offset: number): Token.Location | null;
}

/** parse5's tokenizer plus the processing-instruction states of the current standard. */
class CurrentTokenizer extends Tokenizer {
  #target = '';
  #data = '';
  #location: Token.Location | null = null;

  get #self(): TokenizerInternals {
    return this as unknown as TokenizerInternals;
  }

  protected override _stateTagOpen(cp: number): void {
    if (cp !== QUESTION) {
      super._stateTagOpen(cp);
      return;
    }
    const self = this.#self;
    self._flushRun(''); // characters before `<?` belong to the pending character token
    this.#target = '';
    this.#data = '';
    this.#location = self.getCurrentLocation(1);
    self.state = PI_OPEN;
  }

  /**
   * `<![CDATA[` opens a CDATA section when "there is an adjusted current node and it is not an element in the
   * HTML namespace" — also inside MathML text and SVG HTML integration points (`<mi>`, `<foreignObject>` …),
   * where parse5 checks "not an integration point" instead and makes a bogus comment. `inForeignNode` is
   * read by parse5's tokenizer only here; the parser keeps its own meaning for the rest of the token.
   */
  protected override _stateMarkupDeclarationOpen(cp: number): void {
    const self = this as unknown as { inForeignNode: boolean; handler: { currentNotInHTML?: boolean } };
    const saved = self.inForeignNode;
    self.inForeignNode = self.handler.currentNotInHTML === true;
    try {
      super._stateMarkupDeclarationOpen(cp);
    } finally {
      self.inForeignNode = saved;
    }
  }

  protected override _callState(cp: number): void {
    const state = (this as unknown as TokenizerInternals).state;
    if (state < PI_OPEN) {
      super._callState(cp); // one comparison per character for parse5's own states
      return;
    }
    switch (state) {
      case PI_OPEN:
        this.#open(cp);
        return;
      case PI_TARGET:
        this.#inTarget(cp);
        return;
      case PI_BEFORE_DATA:
        this.#beforeData(cp);
        return;
      case PI_DATA:
        this.#inData(cp);
        return;
      case PI_DATA_QUESTION:
        this.#afterQuestion(cp);
        return;
      default:
        super._callState(cp);
    }
  }

  #open(cp: number): void {
    if (cp === EOF) this.#self._emitEOFToken();
    else if (isTargetStart(cp)) {
      this.#target = String.fromCharCode(cp);
      this.#self.state = PI_TARGET;
    } else this.#toBogusComment(cp);
  }

  #inTarget(cp: number): void {
    if (isTargetChar(cp)) {
      this.#target += String.fromCharCode(cp);
      return;
    }
    if (cp === EOF) {
      this.#self._emitEOFToken();
      return;
    }
    const ends = isWhitespace(cp) || cp === QUESTION || cp === GREATER;
    const reserved = /^xml(-stylesheet)?$/i.test(this.#target);
    if (!ends || reserved) this.#toBogusComment(cp);
    else if (cp === GREATER) this.#emit();
    else this.#self.state = cp === QUESTION ? PI_DATA_QUESTION : PI_BEFORE_DATA;
  }

  #beforeData(cp: number): void {
    if (isWhitespace(cp)) return;
    if (cp === EOF) this.#self._emitEOFToken();
    else if (cp === GREATER) this.#emit();
    else {
      this.#self.state = PI_DATA;
      this.#inData(cp);
    }
  }

  #inData(cp: number): void {
    if (cp === QUESTION) this.#self.state = PI_DATA_QUESTION;
    else if (cp === GREATER) this.#emit();
    else if (cp === EOF) this.#self._emitEOFToken();
    else this.#data += cp === NUL ? '\ufffd' : String.fromCodePoint(cp);
  }

  #afterQuestion(cp: number): void {
    if (cp === GREATER) this.#emit();
    else if (cp === QUESTION) this.#data += '?';
    else if (cp === EOF) this.#self._emitEOFToken();
    else {
      this.#data += '?';
      this.#self.state = PI_DATA;
      this.#inData(cp);
    }
  }

  #emit(): void {
    const self = this.#self;
    self.state = DATA;
    const token: InstructionToken = {
      type: Token.TokenType.COMMENT,
      data: '',
      location: this.#location,
      instruction: { target: this.#target, data: this.#data },
    };
    self.emitCurrentComment(token);
  }

  /** "Convert the temporary buffer to a comment": `?` and the target so far, then reconsume as a bogus comment. */
  #toBogusComment(cp: number): void {
    const self = this.#self;
    self._createCommentToken(0);
    const token = self.currentToken as CommentToken;
    token.data = `?${this.#target}`;
    token.location = this.#location;
    self.state = BOGUS_COMMENT;
    self._stateBogusComment(cp);
  }
}

/** parse5's Parser internals that the new rules use. */
interface ParserInternals {
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

const MODE = InsertionMode;

/** Start tags whose "in body" rules changed with the relaxed `<select>`. */
const SELECT_RULE_TAGS = new Set<number>([$.SELECT, $.OPTION, $.OPTGROUP, $.HR, $.INPUT]);

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
class RecordingParser extends Parser<DefaultTreeAdapterMap> {
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
    const location = token.location;
    const kept = targets.some((element, i) => element.attrs.length !== before[i]);
    this.ignoredStartTags.push({
      tagName: token.tagName,
      within: self.openElements.current ?? self.document,
      ...(kept ? { kept: true as const } : {}),
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

/**
 * The tree builder of today's standard: parse5's, plus relaxed `<select>` and processing instructions.
 * Only full documents are parsed (no fragment case).
 */
class CurrentParser extends RecordingParser {
  /** Whether a `<select>` was inserted: only then is there `<selectedcontent>` to fill. */
  sawSelect = false;

  constructor(options: ParserOptions<DefaultTreeAdapterMap>) {
    super(options);
    const self = this as unknown as ParserInternals;
    self.tokenizer = new CurrentTokenizer(self.options as never, this);
    applyCurrentScopes(self.openElements as unknown as ScopedStack);
  }

  /**
   * Safety net: the "in select" modes no longer exist. Every mode that reaches parse5's in-body <select>
   * rule goes through `_startTagOutsideForeignContent` above (none of the 1 718 conformance tests switches
   * to one); should a path remain, the mode is reset at once, by our rules, which never choose them. (Checked once per start tag: an accessor on `insertionMode`, read for
   * every token, made the whole parse ≈ 25 % slower.)
   */
  override onStartTag(token: TagToken): void {
    super.onStartTag(token);
    const mode = this.#self.insertionMode;
    if (mode === MODE.IN_SELECT || mode === MODE.IN_SELECT_IN_TABLE) {
      this.sawSelect = true;
      this._resetInsertionMode();
    }
  }

  get #self(): ParserInternals {
    return this as unknown as ParserInternals;
  }

  // --- processing instructions ----------------------------------------------------------------------

  override _appendCommentNode(token: CommentToken, parent: ParentNode): void {
    const instruction = (token as InstructionToken).instruction;
    if (!instruction) {
      super._appendCommentNode(token, parent);
      return;
    }
    const node: ProcessingInstruction = {
      nodeName: '#processing-instruction',
      target: instruction.target,
      data: instruction.data,
      parentNode: null,
    };
    const self = this.#self;
    self.treeAdapter.appendChild(parent, node as unknown as ChildNode);
    if (self.options.sourceCodeLocationInfo) node.sourceCodeLocation = token.location;
  }

  // --- relaxed <select> -----------------------------------------------------------------------------

  override _startTagOutsideForeignContent(token: TagToken): void {
    const self = this.#self;
    if (!SELECT_RULE_TAGS.has(token.tagID)) {
      super._startTagOutsideForeignContent(token);
      return;
    }
    switch (self.insertionMode) {
      case MODE.IN_BODY:
      case MODE.IN_CAPTION:
      case MODE.IN_CELL:
        this.#startTagInBody(token);
        return;
      case MODE.IN_TABLE:
      case MODE.IN_TABLE_BODY:
      case MODE.IN_ROW: {
        // "Anything else" in table modes: in body, with foster parenting. A hidden <input> goes in the table.
        if (token.tagID === $.INPUT && isHiddenInput(token)) {
          super._startTagOutsideForeignContent(token);
          return;
        }
        const saved = self.fosterParentingEnabled;
        self.fosterParentingEnabled = true;
        this.#startTagInBody(token);
        self.fosterParentingEnabled = saved;
        return;
      }
      case MODE.IN_TEMPLATE: {
        const stack = self.tmplInsertionModeStack;
        stack[stack.length - 1] = MODE.IN_BODY;
        self.insertionMode = MODE.IN_BODY;
        this.#startTagInBody(token);
        return;
      }
      case MODE.AFTER_HEAD:
        // "Anything else": insert an implied <body>, then in body.
        self._insertFakeElement('body', $.BODY);
        self.insertionMode = MODE.IN_BODY;
        this.#startTagInBody(token);
        return;
      case MODE.AFTER_BODY:
      case MODE.AFTER_AFTER_BODY:
        self.insertionMode = MODE.IN_BODY;
        this.#startTagInBody(token);
        return;
      default:
        super._startTagOutsideForeignContent(token);
    }
  }

  #startTagInBody(token: TagToken): void {
    const self = this.#self;
    const open = self.openElements;
    switch (token.tagID) {
      case $.SELECT:
        if (open.hasInScope($.SELECT)) {
          open.popUntilTagNamePopped($.SELECT); // a nested <select> closes the open one and is ignored
          return;
        }
        self._reconstructActiveFormattingElements();
        self._insertElement(token, NS.HTML);
        self.framesetOk = false;
        this.sawSelect = true;
        return;
      case $.OPTION:
        if (open.hasInScope($.SELECT)) open.generateImpliedEndTagsWithExclusion($.OPTGROUP);
        else if (open.currentTagId === $.OPTION) open.pop();
        self._reconstructActiveFormattingElements();
        self._insertElement(token, NS.HTML);
        return;
      case $.OPTGROUP:
        if (open.hasInScope($.SELECT)) open.generateImpliedEndTags();
        else if (open.currentTagId === $.OPTION) open.pop();
        self._reconstructActiveFormattingElements();
        self._insertElement(token, NS.HTML);
        return;
      case $.HR:
        if (open.hasInButtonScope($.P)) self._closePElement();
        if (open.hasInScope($.SELECT)) open.generateImpliedEndTags();
        self._appendElement(token, NS.HTML);
        self.framesetOk = false;
        token.ackSelfClosing = true;
        return;
      case $.INPUT:
        if (open.hasInScope($.SELECT)) open.popUntilTagNamePopped($.SELECT);
        self._reconstructActiveFormattingElements();
        self._appendElement(token, NS.HTML);
        if (!isHiddenInput(token)) self.framesetOk = false;
        token.ackSelfClosing = true;
        return;
    }
  }

  override _endTagOutsideForeignContent(token: TagToken): void {
    const self = this.#self;
    const open = self.openElements;
    // "In row", `</tbody>`, `</tfoot>`, `</thead>`: ignored unless that element is in table scope (parse5 also
    // acts when only a `<tr>` is: in a template, `<tr>x<small></tbody><img>` then closed the row and the
    // `<small>`, and reopened it — two `<small>`s where browsers have one).
    if (
      self.insertionMode === MODE.IN_ROW &&
      TABLE_SECTIONS.has(token.tagID) &&
      !open.hasInTableScope(token.tagID)
    )
      return;
    if (BODY_LIKE_MODES.has(self.insertionMode)) {
      // (A formatting end tag whose element was opened before an open <select> is ignored by the adoption
      // agency itself: `select` bounds the scope it checks, see page/parser-scope.ts.)
      if (token.tagID === $.SELECT) {
        if (open.hasInScope($.SELECT)) open.popUntilTagNamePopped($.SELECT);
        return;
      }
    }
    super._endTagOutsideForeignContent(token);
  }

  /** "Reset the insertion mode appropriately", in which a `select` no longer selects a mode. */
  override _resetInsertionMode(): void {
    const self = this.#self;
    const open = self.openElements;
    for (let i = open.stackTop; i >= 0; i--) {
      const last = i === 0;
      const node = open.items[i] as Element;
      if (node.namespaceURI !== NS.HTML) continue;
      switch (open.tagIDs[i]) {
        case $.TD:
        case $.TH:
          if (last) break;
          self.insertionMode = MODE.IN_CELL;
          return;
        case $.TR:
          self.insertionMode = MODE.IN_ROW;
          return;
        case $.TBODY:
        case $.THEAD:
        case $.TFOOT:
          self.insertionMode = MODE.IN_TABLE_BODY;
          return;
        case $.CAPTION:
          self.insertionMode = MODE.IN_CAPTION;
          return;
        case $.COLGROUP:
          self.insertionMode = MODE.IN_COLUMN_GROUP;
          return;
        case $.TABLE:
          self.insertionMode = MODE.IN_TABLE;
          return;
        case $.TEMPLATE:
          self.insertionMode = self.tmplInsertionModeStack[self.tmplInsertionModeStack.length - 1] as number;
          return;
        case $.HEAD:
          if (last) break;
          self.insertionMode = MODE.IN_HEAD;
          return;
        case $.BODY:
          self.insertionMode = MODE.IN_BODY;
          return;
        case $.FRAMESET:
          self.insertionMode = MODE.IN_FRAMESET;
          return;
        case $.HTML:
          self.insertionMode = self.headElement ? MODE.AFTER_HEAD : MODE.BEFORE_HEAD;
          return;
      }
    }
    self.insertionMode = MODE.IN_BODY;
  }
}

const TABLE_SECTIONS = new Set<number>([$.TBODY, $.TFOOT, $.THEAD]);

/** Modes whose end tags end up in the "in body" rules for `</select>`. */
const BODY_LIKE_MODES = new Set<number>([
  MODE.IN_BODY,
  MODE.IN_CAPTION,
  MODE.IN_CELL,
  MODE.IN_TABLE,
  MODE.IN_TABLE_BODY,
  MODE.IN_ROW,
]);

function isHiddenInput(token: TagToken): boolean {
  return Token.getTokenAttr(token, 'type')?.toLowerCase() === 'hidden';
}

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

// --- a compact tree -------------------------------------------------------------------------------------

/**
 * Make `text` one flat string in memory: reading a character flattens a concatenation in place (V8), so the
 * pieces it was built from can be collected.
 */
function flatten(text: string): void {
  text.charCodeAt(0);
}

/**
 * parse5's default tree adapter, building the same tree, but compact. The tokenizer hands text over in runs
 * (a word, then the space after it: two tokens; an entity or a line end starts a new run), and the default
 * adapter appends each to the text node with `+=`: a paragraph's text stayed a rope of hundreds of pieces
 * (about 32 bytes each, on top of the characters), and attribute values and comments are built the same way.
 * Each text node is flattened once the parser moves on to another one (and the last one by `finish`),
 * attribute values and comments when their node is made. On a 54 MB page this halves the tree's memory.
 */
function compactTreeAdapter(): { adapter: typeof defaultTreeAdapter; finish(): void } {
  let open: DefaultTreeAdapterTypes.TextNode | undefined;
  const track = (node: ChildNode | undefined): void => {
    if (node === open || node === undefined || node.nodeName !== '#text') return;
    if (open) flatten(open.value);
    open = node as DefaultTreeAdapterTypes.TextNode;
  };
  const adapter: typeof defaultTreeAdapter = {
    ...defaultTreeAdapter,
    createElement(tagName, namespaceURI, attrs) {
      for (const attribute of attrs) flatten(attribute.value);
      // A copy holds exactly its attributes; the tokenizer's array, grown by push, has room for 17.
      return defaultTreeAdapter.createElement(
        tagName,
        namespaceURI,
        attrs.length > 0 ? attrs.slice() : attrs,
      );
    },
    onItemPop(element) {
      // A closed element's children: in an array of their own size (grown by push, it had room for 17).
      if (element.childNodes.length > 0) element.childNodes = element.childNodes.slice();
    },
    createCommentNode(data) {
      flatten(data);
      return defaultTreeAdapter.createCommentNode(data);
    },
    insertText(parentNode, text) {
      defaultTreeAdapter.insertText(parentNode, text);
      track(parentNode.childNodes[parentNode.childNodes.length - 1]);
    },
    insertTextBefore(parentNode, text, referenceNode) {
      defaultTreeAdapter.insertTextBefore(parentNode, text, referenceNode);
      track(parentNode.childNodes[parentNode.childNodes.indexOf(referenceNode) - 1]);
    },
  };
  return { adapter, finish: () => open && flatten(open.value) };
}
