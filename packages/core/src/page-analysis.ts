import type { DefaultTreeAdapterTypes } from 'parse5';
import { locateBlockSlot } from './block-slot.js';
import { selectFirst } from './css-selector.js';
import { findChild, HTML_NS, isElement, readAttribute } from './dom-nodes.js';
import { hashContent } from './page-hash.js';
import {
  compileCachedSelector,
  DEFAULT_SELECTOR,
  parsePage,
  readPageContent,
  serializeContent,
} from './page-parse.js';
import { readSignatureBlockFromHead, type SignatureBlockInfo } from './signature-block-read.js';

type Element = DefaultTreeAdapterTypes.Element;

/** What one parse of a page yields for signing: the hash, the event's text, and where the block goes. */
export interface PageAnalysis {
  /** SHA-256 (lowercase hex) of the UTF-8 `innerHTML` of the selected element; `undefined` when nothing matches. */
  hash: string | undefined;
  /** The `<title>` text with whitespace collapsed and trimmed, as `document.title`; `undefined` when absent or empty. */
  title: string | undefined;
  /** `<meta name="description" content>`, trimmed; `undefined` when absent or empty. */
  description: string | undefined;
  /** UTF-16 offset in `html` where a new signature block goes: the end of `<head>`, also when `<head>` is implied. */
  insertAt: number;
  /** Source range of an existing Siegel block (both markers included), to be replaced; `undefined` when none. */
  existingBlock: { start: number; end: number } | undefined;
  /** The signature block the page carries now (ours or a variant found in the wild); `undefined` when none. */
  signatureBlock: SignatureBlockInfo | undefined;
}

/** Options of {@link analyzePage} and {@link hashPage}. */
export interface AnalyzePageOptions {
  /** CSS selector of the signed element; the first match in tree order is used. Default `'main'`. */
  selector?: string;
}

/** First HTML element named `tagName` under `root`, in tree order (template contents excluded). */
function findFirstHtmlElement(root: Element | undefined, tagName: string): Element | undefined {
  for (const child of root?.childNodes ?? []) {
    if (!isElement(child)) continue;
    if (child.tagName === tagName && child.namespaceURI === HTML_NS) return child;
    const found = findFirstHtmlElement(child, tagName);
    if (found) return found;
  }
  return undefined;
}

function collapseWhitespace(text: string): string | undefined {
  const collapsed = text.replace(/[\t\n\f\r ]+/g, ' ').trim();
  return collapsed === '' ? undefined : collapsed;
}

function readTitle(title: Element): string | undefined {
  let text = '';
  for (const child of title.childNodes)
    if (child.nodeName === '#text') text += (child as { value: string }).value;
  return collapseWhitespace(text);
}

/**
 * Analyse a page for signing: the `siegel-page/1` hash of the selected element, title, description,
 * the block the page carries now, where a new signature block goes and the range of a block an earlier
 * run left. One full parse (parse5, scripting disabled, as `DOMParser`) without source locations, plus a
 * parse with locations of just the part up to the body start (see {@link locateBlockSlot}).
 *
 * @example
 * ```ts
 * const analysis = analyzePage('<!doctype html><title>Hi</title><main><p>Hello</p></main>');
 * analysis.hash;     // sha256 hex of '<p>Hello</p>'
 * analysis.insertAt; // offset right after </title>, where head ends
 * ```
 * @throws {SiegelError} `invalid_options` when `options.selector` uses unsupported syntax.
 */
export function analyzePage(html: string, options: AnalyzePageOptions = {}): PageAnalysis {
  const selector = compileCachedSelector(options.selector ?? DEFAULT_SELECTOR);
  const document = parsePage(html);
  const root = findChild(document, 'html');
  const head = findChild(root, 'head');

  let title: string | undefined;
  let description: string | undefined;
  for (const child of head?.childNodes ?? []) {
    if (!isElement(child)) continue;
    if (child.tagName === 'title' && title === undefined) title = readTitle(child) ?? '';
    else if (
      child.tagName === 'meta' &&
      description === undefined &&
      readAttribute(child, 'name')?.toLowerCase() === 'description'
    ) {
      description = collapseWhitespace(readAttribute(child, 'content') ?? '') ?? '';
    }
  }

  // document.title: the first HTML <title> in tree order; outside <head> only on odd pages, so look there last.
  if (title === undefined) {
    const stray = findFirstHtmlElement(root, 'title');
    if (stray) title = readTitle(stray);
  }
  const element = selectFirst(document, selector);
  return {
    hash: element === undefined ? undefined : hashContent(serializeContent(element)),
    title: title || undefined,
    description: description || undefined,
    ...locateBlockSlot(html),
    signatureBlock: readSignatureBlockFromHead(head),
  };
}

/**
 * The `siegel-page/1` hash of a page: SHA-256 hex of the UTF-8 `innerHTML` of the first element matching
 * `selector` (default `main`), or `undefined` when no element matches.
 *
 * @example
 * ```ts
 * hashPage('<main>Hi</main>'); // sha256('Hi') = '3639efcd…'
 * ```
 * @throws {SiegelError} `invalid_options` when `options.selector` uses unsupported syntax.
 */
export function hashPage(html: string, options: AnalyzePageOptions = {}): string | undefined {
  const content = readPageContent(html, options.selector);
  return content === undefined ? undefined : hashContent(content);
}
