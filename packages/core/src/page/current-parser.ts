// The tree builder of `siegel-page/2` (used by html-parser.ts): parse5's, brought up to today's WHATWG HTML
// tree-construction rules where parse5 8.1 lags behind —
//
// - Relaxed `<select>` (customizable select, whatwg/html #10548): the "in select" and "in select in table"
//   insertion modes are gone; `select`, `option`, `optgroup`, `hr`, `input` and `</select>` get new "in
//   body" rules, so any markup inside a `<select>` becomes elements, as in Chromium and Firefox.
// - Scopes (page/parser-scope.ts): `select` bounds every scope but table scope, `template` bounds table
//   scope; in a row, `</tbody>` (`</tfoot>`, `</thead>`) not in table scope is ignored.
// - Processing instructions become nodes where the tokenizer (current-tokenizer.ts) hands them over.
//
// Separate from the tokenizer (characters), from the record of ignored start tags (recording-parser.ts,
// shared with `siegel-page/1`) and from the record of where browsers build another tree than the standard
// (browser-departures.ts, which this extends): this file is only the insertion-mode rules that changed.
//
// parse5 pins: its protected methods are overridden here, so core depends on an exact parse5 version.
import {
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  html,
  InsertionMode,
  type ParserOptions,
  Token,
} from 'parse5';
import { DepartureRecordingParser } from './browser-departures.js';
import { CurrentTokenizer, type InstructionToken, type ProcessingInstruction } from './current-tokenizer.js';
import { applyCurrentScopes, type ScopedStack } from './parser-scope.js';
import type { ParserInternals } from './recording-parser.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type TagToken = Token.TagToken;
type CommentToken = Token.CommentToken;

const $ = html.TAG_ID;
const NS = html.NS;

const MODE = InsertionMode;

/** Start tags whose "in body" rules changed with the relaxed `<select>`. */
const SELECT_RULE_TAGS = new Set<number>([$.SELECT, $.OPTION, $.OPTGROUP, $.HR, $.INPUT]);

/**
 * The tree builder of today's standard: parse5's, plus relaxed `<select>` and processing instructions.
 * Only full documents are parsed (no fragment case).
 */
export class CurrentParser extends DepartureRecordingParser {
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
