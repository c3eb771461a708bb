// The tokenizer of `siegel-page/2` (used by html-parser.ts): parse5's, plus the tokenizer rules of today's
// WHATWG HTML standard that parse5 8.1 lacks — processing instructions (`<?target data>`, whatwg/html June
// 2026) and CDATA sections wherever the adjusted current node is not an HTML element. Kept apart from the
// tree builder (current-parser.ts) because it works on characters, not tokens: its states, code points and
// parse5 internals are its own. The processing-instruction node it leads to is defined here too, beside the
// token that carries it, for the tree builder and the serializer.
//
// parse5 pins: its protected methods are overridden here, so core depends on an exact parse5 version.
import { type DefaultTreeAdapterTypes, Token, Tokenizer } from 'parse5';

type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type CommentToken = Token.CommentToken;

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

/** A comment token that is really a processing instruction (the tree builder puts both in the same places). */
export interface InstructionToken extends CommentToken {
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
export class CurrentTokenizer extends Tokenizer {
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
