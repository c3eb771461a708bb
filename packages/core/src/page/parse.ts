import { type DefaultTreeAdapterTypes, serialize } from 'parse5';
import { type PageSpec, type ParsedHtml, parseHtml } from './html-parser.js';
import { serializeChildren, serializeChildrenTo } from './serialize.js';

export type { IgnoredStartTag, PageSpec } from './html-parser.js';

/** The spec new signatures are made under. */
export const CURRENT_SPEC: PageSpec = 'siegel-page/2';

/**
 * The revision of how this code reads a page under its spec: raised when a fix changes the hash or the
 * refusal of some pages without a new spec (2: issue 23 — `select` and `template` scopes, CDATA in foreign
 * content; the not-shown, `<selectedcontent>`, scripts-on `<noscript>` and encoding refusals; 3: issue 34 — the
 * signature block's place in source order, so offsets cached by an older run are found anew; plain ASCII
 * pages declaring an ASCII-compatible legacy encoding, refused before, are signed; and so is what a
 * `<template>` drops after `<col>` or in a table body, while markup a browser builds otherwise is refused; 4: issue
 * 35 — "not shown" is judged by allow-lists of containers, attributes and inline declarations, so pages signed
 * before may now be refused, and the event records the base URL a `<base href>` sets, so pages signed with one
 * are signed again). The sign cache records it: a cache of an older
 * revision keeps its events but reads every page again once, so exactly the pages whose reading changed are
 * re-signed or refused (cache/sign-cache.ts).
 */
export const PARSER_REVISION = 4;

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/**
 * The spec a page event's hash was made under: its `spec` tag, or `siegel-page/1` for events from before
 * the tag existed. `undefined` for a `spec` tag this version does not know (such a page cannot be verified).
 */
export function readEventSpec(event: { tags: string[][] }): PageSpec | undefined {
  const spec = event.tags.find((tag) => tag[0] === 'spec')?.[1];
  if (spec === undefined) return 'siegel-page/1';
  return spec === 'siegel-page/1' || spec === 'siegel-page/2' ? spec : undefined;
}

/** Options of {@link parsePage} and {@link parseDocument}. */
export interface ParsePageOptions {
  /** Keep source locations on the nodes. */
  locations?: boolean;
  /** The spec whose parser to use (default {@link CURRENT_SPEC}). */
  spec?: PageSpec;
  /** Parse with scripting on, as a live page is (`<noscript>` is text): not the hash's reading. */
  scripting?: boolean;
}

/**
 * Parse a page as `DOMParser` does (`text/html`, scripting disabled), with or without source offsets, by
 * the parsing rules of `spec` (default: today's standard, `siegel-page/2`).
 * A leading byte order mark (U+FEFF) is not part of the page: a browser strips it when it decodes the file
 * (a BOM left in the string would put the parser in quirks mode and push all of `<head>` into `<body>`).
 * Source offsets are then one less than in `html`.
 *
 * @example
 * ```ts
 * const document = parsePage('<!doctype html><main>Hi</main>');
 * ```
 */
export function parsePage(html: string, options: ParsePageOptions = {}): Document {
  return parseDocument(html, options).document;
}

/** {@link parsePage}, plus the start tags the parser did not turn into elements. */
export function parseDocument(html: string, options: ParsePageOptions = {}): ParsedHtml {
  const text = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  return parseHtml(text, {
    spec: options.spec ?? CURRENT_SPEC,
    locations: options.locations ?? false,
    scripting: options.scripting ?? false,
  });
}

/**
 * `element.innerHTML` per the HTML fragment serialization algorithm of `spec`: for `siegel-page/2` today's
 * (text in `<noscript>` escaped, processing instructions kept); for `siegel-page/1` parse5 8.1's serializer
 * with its default (text in `<noscript>` raw).
 */
export function serializeContent(element: Element, spec: PageSpec = CURRENT_SPEC): string {
  return spec === 'siegel-page/1' ? serialize(element) : serializeChildren(element);
}

/**
 * {@link serializeContent} handed to `write` in parts, in order (see `serializeChildrenTo`): for
 * `siegel-page/2` the whole string never exists at once; `siegel-page/1` (only ever verified) comes whole.
 */
export function serializeContentTo(element: Element, spec: PageSpec, write: (part: string) => void): void {
  if (spec === 'siegel-page/1') write(serialize(element));
  else serializeChildrenTo(element, write);
}

/** The HTML namespace of parse5's elements. */
export const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** True for an element node of parse5's tree (not text, a comment or the document). */
export function isElement(node: ChildNode | ParentNode | undefined): node is Element {
  return node !== undefined && 'tagName' in node;
}

/** The first direct child of `parent` that is the HTML element `tagName`. */
export function findChild(parent: ParentNode | undefined, tagName: string): Element | undefined {
  for (const child of parent?.childNodes ?? []) {
    if (isElement(child) && child.tagName === tagName && child.namespaceURI === HTML_NS) return child;
  }
  return undefined;
}

/** The value of attribute `name` of `element`, or `undefined`. */
export function readAttribute(element: Element, name: string): string | undefined {
  for (const attribute of element.attrs) if (attribute.name === name) return attribute.value;
  return undefined;
}
