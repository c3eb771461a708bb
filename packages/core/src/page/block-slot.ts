// Where a new signature block goes: the parse of `siegel-page/2` itself tells. A `SlotParser` (the tree builder
// of the spec, with source locations) notes before every token whether the tree builder still is in a
// head phase — "before html", "before head", "in head" with `<head>` as the current node, "after head", no
// template open — and stops at the token that starts the body (or a frameset). The block goes at the last
// such token boundary, in source order: there the parser puts its metas and links into `<head>`, and
// leaves every later token in the insertion mode it had, so the rest of the page reads as before. Tree
// order (a foster-parented text, an ignored `<frame>`, `</body>` or NUL before the first body node) does
// not decide it.
import { type DefaultTreeAdapterTypes, InsertionMode, html as parse5Html, Token } from 'parse5';
import { CurrentParser } from './current-parser.js';
import { findChild, isElement } from './parse.js';
import type { ParserInternals } from './recording-parser.js';
import { BLOCK_END_MARKER, isBlockStartMarker } from './signature-block.js';

type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Where a page's signature block goes (UTF-16 offsets into the page). */
export interface BlockSlot {
  /** Offset where a new block is inserted: the end of `<head>`, also when `<head>` is implied. */
  insertAt: number;
  /** Source range of an existing Siegel block (both markers included), to be replaced. */
  existingBlock: { start: number; end: number } | undefined;
  /**
   * True when `insertAt` is a token boundary where the tree builder is in a head phase with nothing open
   * (see the file's comment): a block inserted there is read into `<head>` and changes nothing after it.
   * False when the page has no such place (the last resort is then the body's first token, and only a
   * read-back of the signed page can tell whether the block is kept).
   */
  headPhase: boolean;
}

/** The text of a comment node, or `undefined` for any other node. */
function commentText(node: ChildNode): string | undefined {
  return node.nodeName === '#comment' ? (node as { data: string }).data : undefined;
}

function isStartMarker(node: ChildNode): boolean {
  const text = commentText(node);
  return text !== undefined && isBlockStartMarker(text);
}

function isEndMarker(node: ChildNode): boolean {
  return commentText(node)?.trim().startsWith(BLOCK_END_MARKER) === true;
}

/** The first Siegel block, looked for where a block can end up: in `<head>`, or before it when head is implied. */
function findExistingBlock(
  containers: Array<ParentNode | undefined>,
): { start: number; end: number } | undefined {
  let start: number | undefined;
  let startNode: ChildNode | undefined;
  for (const container of containers) {
    for (const child of container?.childNodes ?? []) {
      const offset = child.sourceCodeLocation?.startOffset;
      if (offset !== undefined && isStartMarker(child) && (start === undefined || offset < start)) {
        start = offset;
        startNode = child;
      }
    }
  }
  if (start === undefined || !startNode) return undefined;
  let end: number | undefined;
  for (const container of containers) {
    for (const child of container?.childNodes ?? []) {
      const location = child.sourceCodeLocation;
      if (location && location.startOffset > start && isEndMarker(child)) {
        if (end === undefined || location.endOffset < end) end = location.endOffset;
      }
    }
  }
  // A block cut short (no closing marker): replace the opening comment alone rather than add a second block.
  return { start, end: end ?? startNode.sourceCodeLocation?.endOffset ?? start };
}

const $ = parse5Html.TAG_ID;
const MODE = InsertionMode;

/** Thrown by {@link SlotParser} once the body has started: the rest of the page is not parsed. */
const BODY_STARTED = Symbol('body started');

type Location = Token.Location | null | undefined;

/**
 * The tree builder of `siegel-page/2` (scripting disabled, as `DOMParser`), noting the token boundaries
 * where a block can go and stopping at the token that starts the body or a frameset.
 */
class SlotParser extends CurrentParser {
  /** Last token boundary "in head", with `<head>` the current node. */
  inHead: number | undefined;
  /** Last token boundary "after head". */
  afterHead: number | undefined;
  /** Last token boundary before `<head>` exists ("initial", "before html", "before head"). */
  beforeHead: number | undefined;
  /**
   * End of the last doctype, `<html>` or `<head>` start tag: a block before one of them makes it read
   * otherwise (a doctype after a comment still decides the mode; after a `<meta>` it is ignored).
   */
  structuralEnd = 0;
  /** Start of the token that started the body. */
  bodyStart: number | undefined;
  /** Length of the text parsed: where the end of the page lies. */
  #length = 0;
  /** Nesting of the token handlers: the tree builder hands a token back to itself to reprocess it. */
  #depth = 0;

  get #self(): ParserInternals {
    return this as unknown as ParserInternals;
  }

  /** Note the boundary before a token the tokenizer hands over (not one the tree builder reprocesses). */
  #before(location: Location): void {
    this.#depth++;
    const at = location?.startOffset;
    const self = this.#self;
    if (this.#depth > 1 || at === undefined || self.tmplInsertionModeStack.length > 0) return;
    switch (self.insertionMode) {
      case MODE.INITIAL:
      case MODE.BEFORE_HTML:
      case MODE.BEFORE_HEAD:
        this.beforeHead = at;
        break;
      case MODE.IN_HEAD:
        if (self.openElements.currentTagId === $.HEAD) this.inHead = at;
        break;
      case MODE.AFTER_HEAD:
        this.afterHead = at;
        break;
    }
  }

  /** After a token: stop once it started the body (or a frameset). */
  #after(location: Location): void {
    this.#depth--;
    if (this.#depth > 0) return;
    const last = findChild(this.document, 'html')?.childNodes.at(-1);
    if (isElement(last) && (last.tagName === 'body' || last.tagName === 'frameset')) {
      this.bodyStart = location?.startOffset ?? this.#length;
      throw BODY_STARTED;
    }
  }

  /** One token handed over by the tokenizer: the boundary before it, the tree builder's handling, the check after. */
  #token(location: Location, handle: () => void): void {
    this.#before(location);
    handle();
    this.#after(location);
  }

  override onStartTag(token: Token.TagToken): void {
    this.#token(token.location, () => {
      super.onStartTag(token);
      if (token.tagID === $.HTML || token.tagID === $.HEAD)
        this.structuralEnd = Math.max(this.structuralEnd, token.location?.endOffset ?? 0);
    });
  }

  override onDoctype(token: Token.DoctypeToken): void {
    this.#token(token.location, () => {
      super.onDoctype(token);
      this.structuralEnd = Math.max(this.structuralEnd, token.location?.endOffset ?? 0);
    });
  }

  override onEndTag(token: Token.TagToken): void {
    this.#token(token.location, () => super.onEndTag(token));
  }

  override onComment(token: Token.CommentToken): void {
    this.#token(token.location, () => super.onComment(token));
  }

  override onCharacter(token: Token.CharacterToken): void {
    this.#token(token.location, () => super.onCharacter(token));
  }

  override onNullCharacter(token: Token.CharacterToken): void {
    this.#token(token.location, () => super.onNullCharacter(token));
  }

  override onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.#token(token.location, () => super.onWhitespaceCharacter(token));
  }

  /**
   * The end of the page is no boundary for a block: the token before it may be one the end cut short (an
   * unclosed comment, `</` …), which the block's text would continue. A tag the end cut short is dropped,
   * though: before it lies a boundary in the state the end finds.
   */
  override onEof(token: Token.EOFToken): void {
    const pending = (this as unknown as { tokenizer: { currentToken: Token.Token | null } }).tokenizer
      .currentToken;
    const dropped = pending?.type === Token.TokenType.START_TAG || pending?.type === Token.TokenType.END_TAG;
    if (dropped) this.#before(pending.location);
    else this.#depth++;
    super.onEof(token);
    this.#after(token.location);
  }

  /** Parse `text` up to the start of its body. */
  read(text: string): void {
    this.#length = text.length;
    try {
      this.#self.tokenizer.write(text, true);
    } catch (error) {
      if (error !== BODY_STARTED) throw error;
    }
  }

  /** The last head-phase boundary: in `<head>` if there is one, else after it, else before it. */
  place(): { insertAt: number; headPhase: boolean } {
    const beforeHead =
      this.beforeHead !== undefined && this.beforeHead >= this.structuralEnd ? this.beforeHead : undefined;
    const at = this.inHead ?? this.afterHead ?? beforeHead;
    if (at !== undefined) return { insertAt: at, headPhase: true };
    return { insertAt: this.bodyStart ?? this.#length, headPhase: false };
  }
}

/**
 * Find where the signature block goes in `html`, and the range of a block an earlier run left: one parse
 * with source locations, of the page up to the start of its body (see the file's comment).
 *
 * @example
 * ```ts
 * locateBlockSlot('<!doctype html><head><title>T</title></head><main>x</main>').insertAt; // 37
 * locateBlockSlot('<!doctype html><table>stray<tr><td>x</td></tr></table><main>hi</main>').insertAt; // 15
 * ```
 */
export function locateBlockSlot(html: string): BlockSlot {
  // A leading BOM is not part of the page (see parsePage); offsets in `text` are one less than in `html`.
  const bom = html.charCodeAt(0) === 0xfeff ? 1 : 0;
  const text = bom ? html.slice(1) : html;
  const parser = new SlotParser({ scriptingEnabled: false, sourceCodeLocationInfo: true });
  parser.read(text);
  const { insertAt, headPhase } = parser.place();
  const document = parser.document;
  const root = findChild(document, 'html');
  const block = findExistingBlock([document, root, findChild(root, 'head')]);
  return {
    insertAt: insertAt + bom,
    existingBlock: block && { start: block.start + bom, end: block.end + bom },
    headPhase,
  };
}
