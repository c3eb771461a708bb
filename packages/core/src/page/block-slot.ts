import type { DefaultTreeAdapterTypes } from 'parse5';
import { parseHtml } from './html-parser.js';
import { findChild, isElement } from './parse.js';
import { BLOCK_END_MARKER, isBlockStartMarker } from './signature-block.js';

type Element = DefaultTreeAdapterTypes.Element;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Where a page's signature block goes (UTF-16 offsets into the page). */
export interface BlockSlot {
  /** Offset where a new block is inserted: the end of `<head>`, also when `<head>` is implied. */
  insertAt: number;
  /** Source range of an existing Siegel block (both markers included), to be replaced. */
  existingBlock: { start: number; end: number } | undefined;
}

/** Start offset of the first node at or below `node` (first-child chain) that has a source location. */
function firstSourceOffset(node: ChildNode | undefined): number | undefined {
  for (let current = node; current !== undefined; ) {
    const location = current.sourceCodeLocation;
    if (location) return location.startOffset;
    current = isElement(current) ? current.childNodes[0] : undefined;
  }
  return undefined;
}

const VOID_IN_HEAD = new Set(['meta', 'link', 'base', 'basefont', 'bgsound']);

/** Offset right after `node` when its end is exact in the source, else `undefined` (closed implicitly). */
function exactEnd(node: ChildNode): number | undefined {
  const location = node.sourceCodeLocation;
  if (!location) return undefined;
  if (!isElement(node)) return location.endOffset;
  const elementLocation = node.sourceCodeLocation;
  if (elementLocation?.endTag || VOID_IN_HEAD.has(node.tagName)) return location.endOffset;
  return undefined;
}

/**
 * Where a new block goes so that the parser puts it in `<head>`, after everything else there.
 * Explicit `</head>`: right before it. Head closed implicitly (by `<body>`, a body element or text): after
 * its last child — or before that child when the child itself was closed implicitly (an unclosed
 * `<noscript>` would otherwise swallow the block). Head implied and empty: where the next node starts.
 */
function findInsertAt(html: string, root: Element | undefined, head: Element | undefined): number {
  const headLocation = head?.sourceCodeLocation;
  if (headLocation?.endTag) return headLocation.endTag.startOffset;
  const lastChild = head?.childNodes.at(-1);
  if (lastChild) {
    const end = exactEnd(lastChild) ?? lastChild.sourceCodeLocation?.startOffset;
    if (end !== undefined) return end;
  }
  if (headLocation?.startTag) return headLocation.startTag.endOffset;
  if (root && head) {
    const siblings = root.childNodes;
    for (let index = siblings.indexOf(head) + 1; index < siblings.length; index++) {
      const offset = firstSourceOffset(siblings[index]);
      if (offset !== undefined) return offset;
    }
  }
  // Nothing after it either: before an explicit `</html>`, else at the very end.
  return root?.sourceCodeLocation?.endTag?.startOffset ?? html.length;
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

/**
 * True when the parser has started the body with a complete token: from then on ("in body" mode) nothing
 * that follows can change `<head>` or what precedes it, so a parse of this prefix of the page sees the same
 * head, with the same source offsets, as a parse of the whole page (the HTML parser is a streaming one).
 * A token cut by the end of the prefix is either dropped (a tag) or becomes text or a comment running up to
 * the end (`<`, `<!-`): so only elements (their start tag was complete) and nodes ending before the end of
 * the prefix count as evidence.
 */
function isHeadFinal(body: Element | undefined, prefixLength: number): boolean {
  if (!body) return false;
  if (body.sourceCodeLocation) return true;
  for (const child of body.childNodes) {
    if (
      isElement(child)
        ? child.sourceCodeLocation?.startTag
        : (child.sourceCodeLocation?.endOffset ?? prefixLength) < prefixLength
    ) {
      return true;
    }
  }
  return false;
}

/** A first guess at a prefix that holds all of `<head>` and a complete body start: up to `<body …>`. */
function guessPrefixLength(html: string): number {
  const body = html.search(/<body[\t\n\f\r />]/i);
  if (body >= 0) {
    const end = html.indexOf('>', body);
    if (end >= 0) return end + 1;
  }
  const headEnd = html.search(/<\/head[\t\n\f\r />]/i);
  return headEnd >= 0 ? headEnd + 1024 : 8192;
}

/**
 * Find where the signature block goes in `html`, parsing (with source locations) only as much of the page as
 * it takes to see the whole `<head>`: a prefix up to the body start, grown until the parser is "in body"
 * (or the page ends). Locations cost a parse about a third more; this keeps that cost on the head alone.
 *
 * @example
 * ```ts
 * locateBlockSlot('<!doctype html><head><title>T</title></head><main>x</main>').insertAt; // 37
 * ```
 */
export function locateBlockSlot(html: string, options: { prefixLength?: number } = {}): BlockSlot {
  // A leading BOM is not part of the page (see parsePage); offsets in `text` are one less than in `html`.
  const bom = html.charCodeAt(0) === 0xfeff ? 1 : 0;
  const text = bom ? html.slice(1) : html;
  let length = Math.max(options.prefixLength ?? guessPrefixLength(text), 1);
  while (true) {
    const complete = length >= text.length;
    const { document } = parseHtml(complete ? text : text.slice(0, length), { locations: true });
    const root = findChild(document, 'html');
    const head = findChild(root, 'head');
    if (complete || isHeadFinal(findChild(root, 'body'), length)) {
      const insertAt = findInsertAt(text, root, head) + bom;
      const block = findExistingBlock([document, root, head]);
      return { insertAt, existingBlock: block && { start: block.start + bom, end: block.end + bom } };
    }
    length *= 2;
  }
}
