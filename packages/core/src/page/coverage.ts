import type { DefaultTreeAdapterTypes } from 'parse5';
import {
  HTML_NS,
  type IgnoredStartTag,
  isElement,
  type PageSpec,
  parseDocument,
  readAttribute,
} from './parse.js';
import { describeSelector } from './selector.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Why a page's signed element cannot carry a signature that means "the reader sees what was signed". */
export interface Refusal {
  /** `multiple`: the selector matches more than one element. `hidden`: the element or an ancestor is hidden or inert. `ignored-markup`: a start tag inside it did not become an element. `ambiguous-noscript`: `siegel-page/1` text in `<noscript>` that hashes like markup. */
  code: 'multiple' | 'hidden' | 'ignored-markup' | 'ambiguous-noscript';
  message: string;
}

function isWithin(node: ParentNode, ancestor: ParentNode, templateOf: Map<ParentNode, Element>): boolean {
  for (let at: ParentNode | undefined = node; at; ) {
    if (at === ancestor) return true;
    at = (at as Element).parentNode ?? templateOf.get(at) ?? undefined;
  }
  return false;
}

/**
 * Template contents inside `root`, mapped to their template (a content fragment has no parent in parse5's
 * tree). An ignored tag can only lie inside the signed element through a template that is inside it too.
 */
function templateContents(root: ParentNode): Map<ParentNode, Element> {
  const map = new Map<ParentNode, Element>();
  const stack: ParentNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as ParentNode;
    for (const child of node.childNodes) if (isElement(child)) stack.push(child);
    const element = node as DefaultTreeAdapterTypes.Template;
    if (element.tagName === 'template' && element.content) {
      map.set(element.content, element);
      stack.push(element.content);
    }
  }
  return map;
}

/** The element itself or its nearest ancestor that hides it (`hidden`, `inert`, or a `<template>`), if any. */
function findHider(element: Element): string | undefined {
  for (let at: ParentNode | null = element; at && isElement(at); at = at.parentNode) {
    const name = at === element ? 'the element itself' : `an ancestor <${at.tagName}>`;
    if (at.namespaceURI === HTML_NS && at.tagName === 'template') return `it sits in ${name}`;
    if (readAttribute(at, 'hidden') !== undefined) return `${name} has \`hidden\``;
    if (readAttribute(at, 'inert') !== undefined) return `${name} has \`inert\``;
  }
  return undefined;
}

/** True when `element` holds `<noscript>` text that `siegel-page/1` (raw noscript text) hashes like markup. */
function hasAmbiguousNoscript(element: Element): boolean {
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const node = stack.pop() as Element;
    for (const child of node.childNodes) {
      if (isElement(child)) stack.push(child);
      else if (
        child.nodeName === '#text' &&
        node.tagName === 'noscript' &&
        /[&<>\u00a0]/.test((child as DefaultTreeAdapterTypes.TextNode).value)
      )
        return true;
    }
  }
  return false;
}

/**
 * Check that a signature over `matches[0]` would mean what a reader sees: exactly one element matches, it is
 * not hidden, and no start tag inside it was ignored by the parser (a browser may keep such a tag, the hash
 * would not cover it). For an ignored tag, the page is parsed again with source locations to say where.
 *
 * @example
 * ```ts
 * const refusal = checkCoverage(html, parsed, selectAll(parsed.document, compiled, 2), 'main', 'siegel-page/2');
 * ```
 */
export function checkCoverage(
  html: string,
  ignoredStartTags: IgnoredStartTag[],
  matches: Element[],
  selector: string,
  spec: PageSpec,
): Refusal | undefined {
  const element = matches[0];
  if (element === undefined) return undefined;
  const what = describeSelector(selector);
  if (matches.length > 1) {
    return {
      code: 'multiple',
      message: `more than one element matches ${what}; a signature covers exactly one`,
    };
  }
  const hider = findHider(element);
  if (hider) return { code: 'hidden', message: `the signed ${what} is not shown to readers: ${hider}` };
  if (ignoredStartTags.length > 0) {
    const templateOf = templateContents(element);
    const inside = ignoredStartTags.findIndex((tag) => isWithin(tag.within, element, templateOf));
    if (inside >= 0) {
      const located = parseDocument(html, { spec, locations: true }).ignoredStartTags[inside];
      const tag = located ?? (ignoredStartTags[inside] as IgnoredStartTag);
      const where = tag.line === undefined ? '' : ` at line ${tag.line}, column ${tag.col}`;
      return {
        code: 'ignored-markup',
        message: `the HTML parser ignores the start tag <${tag.tagName}>${where} inside ${what}: a browser may show markup there that the hash would not cover`,
      };
    }
  }
  if (spec === 'siegel-page/1' && hasAmbiguousNoscript(element)) {
    return {
      code: 'ambiguous-noscript',
      message: `${what} holds <noscript> text with & < or >, which siegel-page/1 hashes exactly like markup`,
    };
  }
  return undefined;
}
