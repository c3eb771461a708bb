// What a page loads and runs besides its own HTML, as the site manifest pins it (docs/site-manifest.md):
// its inline scripts and styles by their CSP hash, and the scripts, module preloads and stylesheets it
// fetches by their address. The signer records the list in the manifest and every verifier computes it
// again from the page it was given, with this one function, and compares. Pure: no Node built-ins, bundled
// into the browser verify script.
import { sha256 } from '@noble/hashes/sha2.js';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { HTML_NS, isElement, readAttribute } from './parse.js';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A site's base, as every page URL is made from it: origin and path, no trailing `/`. */
export function siteBaseOf(site: URL): string {
  return `${site.origin}${site.pathname}`.replace(/\/+$/, '');
}

/**
 * The path a URL has inside the site at `siteUrl` — `/` + its decoded path below the site's base, no query
 * or fragment, as the manifest's `path` tags name files — or `undefined` when the URL is not under the site.
 *
 * @example
 * ```ts
 * sitePathOf(new URL('https://x.github.io/proj/a.js?v=2'), 'https://x.github.io/proj/'); // '/a.js'
 * sitePathOf(new URL('https://cdn.example/a.js'), 'https://x.github.io/proj/');          // undefined
 * ```
 */
export function sitePathOf(url: URL, siteUrl: string): string | undefined {
  const base = siteBaseOf(new URL(siteUrl));
  const here = `${url.origin}${url.pathname}`;
  if (here !== base && !here.startsWith(`${base}/`)) return undefined;
  const rest = here.slice(base.length) || '/';
  return rest
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** CSP's hash-source of a script's or style's text: `sha256-` + base64 of the SHA-256 of its UTF-8 bytes. */
export function cspHash(text: string): string {
  const digest = sha256(new TextEncoder().encode(text));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `sha256-${btoa(binary)}`;
}

/** The text of an element as `textContent` reads it (its text children: a script's or style's source). */
function textOf(element: Element): string {
  let text = '';
  for (const child of element.childNodes)
    if (child.nodeName === '#text') text += (child as DefaultTreeAdapterTypes.TextNode).value;
  return text;
}

/** `rel`'s keywords, lowercased (the attribute is an ASCII-whitespace separated token set). */
function relTokens(element: Element): string[] {
  return (readAttribute(element, 'rel') ?? '').toLowerCase().split(/[\t\n\f\r ]+/);
}

/** What `element` loads as a script or a style, or `undefined` when it loads neither. */
function loadKind(element: Element): { kind: 'script' | 'style'; href: string | undefined } | undefined {
  const html = element.namespaceURI === HTML_NS;
  const svg = element.namespaceURI === SVG_NS;
  if (element.tagName === 'script' && (html || svg)) {
    // An SVG <script> runs too; its address is `href` (SVG 2) or `xlink:href`.
    const src = html
      ? readAttribute(element, 'src')
      : (readAttribute(element, 'href') ?? readAttribute(element, 'xlink:href'));
    return { kind: 'script', href: src };
  }
  if (element.tagName === 'style' && (html || svg)) return { kind: 'style', href: undefined };
  if (element.tagName !== 'link' || !html) return undefined;
  const href = readAttribute(element, 'href');
  if (href === undefined) return undefined;
  const rel = relTokens(element);
  if (rel.includes('stylesheet')) return { kind: 'style', href };
  if (rel.includes('modulepreload')) return { kind: 'script', href };
  if (rel.includes('preload')) {
    const as = (readAttribute(element, 'as') ?? '').trim().toLowerCase();
    if (as === 'script' || as === 'style') return { kind: as, href };
  }
  return undefined;
}

/** One load item: `<kind> <same-site path>`, or `<kind> <absolute URL>[ <integrity>]` for another site. */
function loadItem(element: Element, kind: string, href: string, baseUrl: string, siteUrl: string): string {
  let url: URL;
  try {
    url = new URL(href, baseUrl);
  } catch {
    return `${kind} ${href}`;
  }
  const path = sitePathOf(url, siteUrl);
  if (path !== undefined) return `${kind} ${path}`;
  url.hash = '';
  const integrity = readAttribute(element, 'integrity');
  return integrity === undefined ? `${kind} ${url.href}` : `${kind} ${url.href} ${integrity}`;
}

/**
 * What a page loads and runs, in document order, each item once: every inline `<script>` (any type) as
 * `script sha256-<base64>` and every `<style>` as `style sha256-<base64>` (CSP's hash of its text), and every
 * `<script src>`, `<link rel=stylesheet|modulepreload>` and `<link rel=preload as=script|style>` as
 * `script <url>` / `style <url>`: the address resolved against `baseUrl` (the page's address, or the base
 * URL its `<base href>` sets), written `/path/file.ext` when it is under `siteUrl`, else absolute and
 * followed by the element's `integrity` as written when it has one. Template contents do not count (they
 * are not in `childNodes`); pass the tree as a browser with scripts on builds it (see readPageFacts), so
 * that `<noscript>` content, which such a browser does not load, does not count either.
 *
 * @example
 * ```ts
 * pageLoads(parsePage('<script src="/a.js"></script><style>p{}</style>'), 'https://x.com/p/', 'https://x.com/');
 * // ['script /a.js', 'style sha256-…']
 * ```
 */
export function pageLoads(document: Document, baseUrl: string, siteUrl: string): string[] {
  const loads = new Set<string>();
  // Nodes still to visit, next last: an explicit stack, so a deeply nested page cannot overflow the call stack.
  const stack: ChildNode[] = [...document.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isElement(node)) continue;
    const load = loadKind(node);
    if (load !== undefined) {
      loads.add(
        load.href === undefined
          ? `${load.kind} ${cspHash(textOf(node))}`
          : loadItem(node, load.kind, load.href, baseUrl, siteUrl),
      );
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i] as ChildNode);
  }
  return [...loads];
}
