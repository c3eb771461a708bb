// What a reader's browser takes from a page besides its signed element, and the event records at signing:
// the title (tab, bookmarks, link previews: `document.title`) and the base URL every relative link and form
// resolves against (`<base href>`). Signing (analyze.ts) and every verifier (page-check.ts, the browser
// verify script) read them here, one way; the rule book (verify/rules.ts) compares them with the event.
// Pure: no Node built-ins, bundled into the browser verify script.
import type { DefaultTreeAdapterTypes } from 'parse5';
import { pageLoads } from './page-loads.js';
import { HTML_NS, isElement, type PageSpec, parseDocument, readAttribute } from './parse.js';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

/** The title, `<base href>` and load list of a page, as a reader's browser (scripts on) reads them. */
export interface PageFacts {
  /** `document.title`; `undefined` when the page has no title or an empty one. */
  title: string | undefined;
  /** The `href` of the first `<base>` that has one, as written; `undefined` when none (the page's address is its base URL). */
  baseHref: string | undefined;
  /**
   * What the page loads and runs (page/page-loads.ts), in document order: the list the site manifest pins.
   * Empty when the reader was not told where the page lives ({@link PageOrigin}).
   */
  loads: string[];
}

/** Where a page lives, which its load list is written against: its address and the site's URL. */
export interface PageOrigin {
  /** The page's address (the event's `url`, or `pageUrl(site, path)` when signing). */
  address: string;
  /** The site URL the manifest names (`SITE_URL`, the manifest's `url` tag). */
  siteUrl: string;
}

/** HTML's "strip and collapse ASCII whitespace"; `undefined` for nothing left. */
export function collapseWhitespace(text: string): string | undefined {
  const collapsed = text.replace(/[\t\n\f\r ]+/g, ' ').trim();
  return collapsed === '' ? undefined : collapsed;
}

/** The first HTML element named `tagName` in tree order that `accept`s, template contents excluded (as the DOM's). */
function findFirst(
  root: ParentNode,
  tagName: string,
  accept: (element: Element) => boolean = () => true,
): Element | undefined {
  // Nodes still to visit, next last: an explicit stack, so a deeply nested page cannot overflow the call stack.
  const stack: ChildNode[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isElement(node)) continue;
    if (node.tagName === tagName && node.namespaceURI === HTML_NS && accept(node)) return node;
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i] as ChildNode);
  }
  return undefined;
}

/**
 * The page's title as `document.title` reads it: the text of the first HTML `<title>` in tree order,
 * anywhere in the document (an SVG `<title>` is not one), whitespace collapsed and trimmed; `undefined` when
 * there is none or it is empty.
 *
 * @example
 * ```ts
 * readDocumentTitle(parsePage('<title>  Hello\n world </title>')); // 'Hello world'
 * ```
 */
export function readDocumentTitle(document: Document): string | undefined {
  const title = findFirst(document, 'title');
  if (title === undefined) return undefined;
  let text = '';
  for (const child of title.childNodes)
    if (child.nodeName === '#text') text += (child as DefaultTreeAdapterTypes.TextNode).value;
  return collapseWhitespace(text);
}

/**
 * The `href` of the first HTML `<base>` in tree order that has one, anywhere in the document (a `<base>` in
 * `<body>` counts, as in browsers; one with only `target` sets no base URL and is passed over); `undefined`
 * when none has.
 *
 * @example
 * ```ts
 * readBaseHref(parsePage('<base target="_blank"><base href="/docs/">')); // '/docs/'
 * ```
 */
export function readBaseHref(document: Document): string | undefined {
  const base = findFirst(document, 'base', (element) => readAttribute(element, 'href') !== undefined);
  return base === undefined ? undefined : readAttribute(base, 'href');
}

/**
 * The base URL a `<base href>` sets for a page at `address`, as a browser resolves it (HTML, "set the frozen
 * base URL"): `href` parsed against the address; `undefined` when there is no `href`, or it does not parse,
 * or it is a `data:` or `javascript:` URL — the page's own address is then its base URL.
 *
 * @example
 * ```ts
 * resolveBaseUrl('/', 'https://example.com/blog/x/');                  // 'https://example.com/'
 * resolveBaseUrl('https://evil.example/', 'https://example.com/x/');  // 'https://evil.example/'
 * resolveBaseUrl('javascript:alert(1)', 'https://example.com/x/');    // undefined
 * ```
 */
export function resolveBaseUrl(href: string | undefined, address: string): string | undefined {
  if (href === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(href, address);
  } catch {
    return undefined;
  }
  return url.protocol === 'data:' || url.protocol === 'javascript:' ? undefined : url.href;
}

/**
 * The title, `<base href>` and load list of a page as a reader with scripts on reads them: from `document`
 * (the hash's reading, scripting off), and — when a `<title`, `<base`, `<script`, `<style`, `<link` or
 * `<svg` tag follows a `<noscript>`, which a live page reads as text up to its first `</noscript>` — from a
 * second parse with scripting on, so that a `<title>`, `<base>` or script hidden from the hash's reading
 * in a `<noscript>` comment is still the one read, and one inside a `<noscript>` is not. Before the first
 * `<noscript` both readings are the same, so a page whose such tags all come before it (a tag manager's
 * `<noscript>` in `<body>`) is parsed once. The load list only when `origin` is given (else empty).
 *
 * @example
 * ```ts
 * const { document } = parseDocument(html, { spec });
 * const { title, baseHref, loads } = readPageFacts(html, document, spec, { address, siteUrl });
 * ```
 */
export function readPageFacts(
  html: string,
  document: Document,
  spec: PageSpec,
  origin?: PageOrigin,
): PageFacts {
  const noscript = html.search(/<noscript/i);
  const after = noscript >= 0 ? html.slice(noscript) : '';
  const differs = /<(?:title|base)[\t\n\f\r />]/i.test(after);
  const loadsDiffer = origin !== undefined && /<(?:script|style|link|svg)[\t\n\f\r />]/i.test(after);
  const live = differs || loadsDiffer ? parseDocument(html, { spec, scripting: true }).document : document;
  const baseHref = readBaseHref(live);
  let loads: string[] = [];
  if (origin !== undefined) {
    const baseUrl = resolveBaseUrl(baseHref, origin.address) ?? origin.address;
    loads = pageLoads(live, baseUrl, origin.siteUrl);
  }
  return { title: readDocumentTitle(live), baseHref, loads };
}
