import { type DefaultTreeAdapterTypes, InsertionMode } from 'parse5';
import { findHider } from './not-shown.js';
import { findChild, type IgnoredStartTag, isElement, type PageSpec, parseDocument } from './parse.js';
import type { BrowserDeparture } from './recording-parser.js';
import { compileCachedSelector, describeSelector, selectAll } from './selector.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

/**
 * Start tags today's parser drops with nothing kept (the standard's "ignore the token"): a page holding one
 * is read the same by every conforming browser, so it is signed. `<html>` and `<body>` only when their
 * attributes went nowhere (the record's `kept`); `<select>` in a `<select>` closes the open one, which the
 * tree shows. Anything else a parser ignores, and every ignored tag under `siegel-page/1` (whose parser
 * ignored markup that browsers keep), is refused.
 */
const DROPPED_WITH_NOTHING_KEPT = new Set([
  'html',
  'body',
  'head',
  'frameset',
  'frame',
  'form',
  'select',
  'caption',
  'col',
  'colgroup',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'td',
  'th',
]);

/**
 * Modes in which a start tag is only ever ignored inside a `<template>`, with nothing kept, whatever its name:
 * "in column group" with the template as current node (`<template><col><div>`: every tag but `<col>` and
 * `<template>`) and "in table body" (`<template><tr></tr><caption>`, `<template><tbody><table>`). Chromium
 * and Firefox drop them too; the exceptions are recorded by the parser (`departs`, page/browser-departures.ts):
 * a `<form>` there, which Chromium keeps, and a template Chromium reads "in body" after a `<title>`, where a
 * `<table>` appears instead.
 */
const MODES_DROPPING_ANY_TAG = new Set<number>([InsertionMode.IN_COLUMN_GROUP, InsertionMode.IN_TABLE_BODY]);

function isHarmless(tag: IgnoredStartTag, spec: PageSpec): boolean {
  if (spec === 'siegel-page/1' || tag.kept || tag.overwritten || tag.departs) return false;
  return DROPPED_WITH_NOTHING_KEPT.has(tag.tagName) || MODES_DROPPING_ANY_TAG.has(tag.mode as number);
}

/** Why a browser reads a recorded departure otherwise than the standard, given the element it stands in. */
const DEPARTURES: Record<BrowserDeparture, (within: string) => string> = {
  'chromium-template-form': () =>
    'which the standard ignores in a table inside a <template>, and Chromium keeps as an empty <form>',
  'chromium-template-form-end': (within) =>
    `which the standard lets close the form across the open <${within}>, and Chromium ignores there (inside a <template> it reads </form> as any other end tag)`,
  'chromium-template-in-body': () =>
    'which the standard reads as table markup, and Chromium by the "in body" rules (it reads a <template> so from a <title>, <base>, <basefont>, <bgsound> or <noframes> on)',
  'firefox-special': (within) =>
    `whose handling crosses an open <${within}>, which Firefox counts as a special element: Firefox builds another tree from there on (it can move the rest of the page into a closed <dialog>)`,
};

/** Why a page's signed element cannot carry a signature that means "the reader sees what was signed". */
export interface Refusal {
  /** `multiple`: the selector matches more than one element. `hidden`: it or an ancestor is not on the lists of what cannot hide content (page/not-shown.ts). `ignored-markup`: a start tag inside it did not become an element, or a browser builds the markup otherwise than the standard (page/browser-departures.ts). `ambiguous-noscript`: a `<noscript>` makes the element read otherwise with scripts on, or (`siegel-page/1`) holds text that hashes like markup. `encoding`: a browser would not decode the page's bytes as UTF-8 (page/encoding.ts). */
  code: 'multiple' | 'hidden' | 'ignored-markup' | 'ambiguous-noscript' | 'encoding';
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

const NOSCRIPT = /<noscript/i;

/**
 * What a reader's live page (scripts on: `<noscript>` is raw text, up to the first `</noscript>`) shows of
 * the selected element, against the hash's reading (scripting off, as `DOMParser`): `undefined` when they
 * agree — one element matches in both, and every node outside `<noscript>` is the same — else why not.
 * A comment in `<noscript>` that holds `</noscript>` shows its rest on the live page, markup the signed
 * reading keeps hidden (html5lib tests16 #85–89); a `<main>` there would be a second one.
 */
function compareLiveReading(
  html: string,
  selector: string,
  signed: Element,
  spec: PageSpec,
): string | undefined {
  const { document } = parseDocument(html, { spec, scripting: true });
  const matches = selectAll(document, compileCachedSelector(selector), 2);
  if (matches.length !== 1)
    return `is read as ${matches.length === 0 ? 'no element' : 'more than one element'} when scripts run, because of a <noscript>: a reader would be shown something else than what is signed`;
  return sameNodes(shownNodes(signed), shownNodes(matches[0] as Element))
    ? undefined
    : 'holds a <noscript> that a browser with scripts on ends elsewhere: the reader is shown other markup than the signed reading has';
}

/** Whether two walks yield the same nodes in the same order and end together (read side by side). */
function sameNodes(a: Generator<string>, b: Generator<string>): boolean {
  for (;;) {
    const left = a.next();
    const right = b.next();
    if (left.done || right.done) return left.done === right.done;
    if (left.value !== right.value) return false;
  }
}

/** Every node under `root` as a short string, in tree order, skipping what `<noscript>` holds (not shown live). */
function* shownNodes(root: ParentNode): Generator<string> {
  // Nodes still to visit, last first; a string is the end tag of an element whose children were visited.
  const stack: Array<ChildNode | string> = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as ChildNode | string;
    if (typeof node === 'string') yield node;
    else if (isElement(node)) {
      const attrs = node.attrs.map(
        (attr) => ` ${attr.prefix ?? ''}:${attr.name}=${JSON.stringify(attr.value)}`,
      );
      yield `<${node.namespaceURI} ${node.tagName}${attrs.join('')}>`;
      stack.push(`</${node.tagName}>`);
      if (node.tagName === 'noscript') continue;
      const content = (node as DefaultTreeAdapterTypes.Template).content;
      const children = node.tagName === 'template' && content ? content.childNodes : node.childNodes;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ChildNode);
    } else if (node.nodeName === '#text') yield `t${(node as DefaultTreeAdapterTypes.TextNode).value}`;
    else if (node.nodeName === '#comment') yield `c${(node as DefaultTreeAdapterTypes.CommentNode).data}`;
    else {
      // A processing instruction (page/html-parser.ts) or a doctype: its name and data.
      const { target, data } = node as { target?: string; data?: string };
      yield `${node.nodeName} ${target ?? ''} ${data ?? ''}`;
    }
  }
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

/** The reason for refusing a recorded tag, `what` being the signed element's description. */
function describeRecord(tag: IgnoredStartTag, what: string, inside: boolean): string {
  const where = tag.line === undefined ? '' : ` at line ${tag.line}, column ${tag.col}`;
  if (tag.departs) {
    const name = `${tag.endTag ? 'end' : 'start'} tag <${tag.endTag ? '/' : ''}${tag.tagName}>`;
    const why = DEPARTURES[tag.departs]((tag.within as Element).tagName);
    return `the ${name}${where} ${inside ? `inside ${what}` : 'in the page'}, ${why}: a reader in that browser is shown other markup than the hash covers`;
  }
  if (tag.overwritten)
    return `the <selectedcontent>${where} inside ${what} holds markup of its own, which the parser replaces with the selected option's content: a browser may load or keep it, and the hash would not cover it`;
  if (tag.tagName === 'frameset' && !inside)
    return `the HTML parser ignores the start tag <frameset>${where}, but Firefox may show the frameset in place of the page's body (and of ${what})`;
  return `the HTML parser ignores the start tag <${tag.tagName}>${where} inside ${what}${tag.kept ? ' and moves its attributes onto the page’s own element' : ''}: a browser may show markup there that the hash would not cover`;
}

/**
 * Check that a signature over `matches[0]` would mean what a reader sees: exactly one element matches, it and its
 * ancestors are on the lists of what cannot hide content (page/not-shown.ts), and no start tag inside it was ignored by the
 * parser unless the standard drops it with nothing kept (else a browser may keep something the hash would
 * not cover), and no `<selectedcontent>` in it held markup of its own. For an ignored tag, the page is parsed again with source locations to say where.
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
  if (hider)
    return { code: 'hidden', message: `the signed ${what} may not be shown to readers as signed: ${hider}` };
  if (ignoredStartTags.length > 0) {
    const templateOf = templateContents(element);
    // Refused: a tag ignored inside the element that a browser may keep something of, and an ignored
    // `<frameset>` anywhere in the page where `<body>` is implied: Firefox (153 ESR) misses the
    // rule that ends "frameset-ok" at text starting with white space, and then replaces the whole body with
    // the frameset (after a `<body>` tag it ignores it, as the standard says).
    // One parse with source locations, when needed: to see whether `<body>` was implied, and to say where.
    let located: ReturnType<typeof parseDocument> | undefined;
    const locate = () => {
      located ??= parseDocument(html, { spec, locations: true });
      return located;
    };
    const bodyImplied = () => !findChild(findChild(locate().document, 'html'), 'body')?.sourceCodeLocation;
    // A Firefox departure anywhere in the page: the tree it builds differs from there on, around the element too.
    const inside = ignoredStartTags.findIndex(
      (tag) =>
        tag.departs === 'firefox-special' ||
        (!isHarmless(tag, spec) && isWithin(tag.within, element, templateOf)) ||
        (tag.tagName === 'frameset' && spec !== 'siegel-page/1' && bodyImplied()),
    );
    if (inside >= 0) {
      // The record of this parse says where the tag stands; the same record of the located parse, its line.
      const tag = ignoredStartTags[inside] as IgnoredStartTag;
      const { line, col } = locate().ignoredStartTags[inside] ?? tag;
      const message = describeRecord({ ...tag, line, col }, what, isWithin(tag.within, element, templateOf));
      return { code: 'ignored-markup', message };
    }
  }
  if (spec !== 'siegel-page/1' && NOSCRIPT.test(html)) {
    const live = compareLiveReading(html, selector, element, spec);
    if (live) return { code: 'ambiguous-noscript', message: `${what} ${live}` };
  }
  if (spec === 'siegel-page/1' && hasAmbiguousNoscript(element)) {
    return {
      code: 'ambiguous-noscript',
      message: `${what} holds <noscript> text with & < or >, which siegel-page/1 hashes exactly like markup`,
    };
  }
  return undefined;
}
