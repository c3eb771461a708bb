// page/ owns everything about one HTML page, and nothing about a site: parsing it as a browser's
// DOMParser does (parse.ts), choosing the signed element (selector.ts), hashing it (`siegel-page/2`, here),
// reading the title and description for the event (page-event.ts builds the event), finding where the
// signature block goes (block-slot.ts), rendering and reading the block (signature-block*.ts), and splicing
// it into the page's bytes (splice.ts). Pure functions of a page's text. The browser verify script bundles
// parse.ts and selector.ts, so those two import nothing from Node.
import { createHash } from 'node:crypto';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { locateBlockSlot } from './block-slot.js';
import { checkCoverage, type Refusal } from './coverage.js';
import { checkEncoding } from './encoding.js';
import { collapseWhitespace, type PageFacts, type PageOrigin, readPageFacts } from './page-facts.js';
import {
  CURRENT_SPEC,
  findChild,
  HTML_NS,
  isElement,
  type PageSpec,
  parseDocument,
  readAttribute,
  serializeContent,
  serializeContentTo,
} from './parse.js';
import { compileCachedSelector, DEFAULT_SELECTOR, selectAll, selectFirst } from './selector.js';
import { readSignatureBlockFromHead, type SignatureBlockInfo } from './signature-block-read.js';
import { type BlockPlace, toBytePlace } from './splice.js';

type Element = DefaultTreeAdapterTypes.Element;

/** What one parse of a page yields for signing: the hash, the event's text, and where the block goes. */
export interface PageAnalysis {
  /** SHA-256 (lowercase hex) of the UTF-8 `innerHTML` of the selected element; `undefined` when nothing matches. */
  hash: string | undefined;
  /** The spec the hash was computed by. */
  spec: PageSpec;
  /** Why the element cannot be signed or verified (several matches, hidden, ignored markup inside); `undefined` when it can. */
  refusal: Refusal | undefined;
  /** The title as `document.title` reads it (page/page-facts.ts); `undefined` when absent or empty. */
  title: string | undefined;
  /** The `href` of the page's first `<base href>`, as written (page/page-facts.ts); `undefined` when none. */
  baseHref: string | undefined;
  /** What the page loads and runs (page/page-loads.ts); empty unless `origin` was given. */
  loads: string[];
  /** `<meta name="description" content>`, trimmed; `undefined` when absent or empty. */
  description: string | undefined;
  /** UTF-16 offset in `html` where a new signature block goes: the end of `<head>`, also when `<head>` is implied. */
  insertAt: number;
  /** Source range of an existing Siegel block (both markers included), to be replaced; `undefined` when none. */
  existingBlock: { start: number; end: number } | undefined;
  /** The signature block the page carries now (ours or a variant found in the wild); `undefined` when none. */
  signatureBlock: SignatureBlockInfo | undefined;
  /**
   * True when a new block at `insertAt` is proven to verify without reading the signed page back: the place
   * is a head-phase boundary of the parse (page/block-slot.ts), the page carries no block or `nostr:*`
   * metadata a verifier would read first, and the signed element lies in `<body>`, which the block does not
   * touch. Otherwise a signing run reads the signed page back before writing it.
   */
  splicesSafely: boolean;
}

/** Options of {@link analyzePage} and {@link hashPage}. */
export interface AnalyzePageOptions {
  /** CSS selector of the signed element; the first match in tree order is used. Default `'main'`. */
  selector?: string;
  /** The spec to hash by (default `siegel-page/2`; verifiers pass the spec an event was signed under). */
  spec?: PageSpec;
  /** Where the page lives, to read its load list against (the site manifest's `loads`). Default: no list. */
  origin?: PageOrigin | undefined;
}

/**
 * Analyse a page for signing: the `siegel-page/2` hash of the selected element, title, description,
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
  const spec = options.spec ?? CURRENT_SPEC;
  const { head, hash, refusal, inBody, facts } = readElement(
    html,
    options.selector ?? DEFAULT_SELECTOR,
    spec,
    options.origin,
  );

  let description: string | undefined;
  for (const child of head?.childNodes ?? []) {
    if (
      isElement(child) &&
      child.tagName === 'meta' &&
      readAttribute(child, 'name')?.toLowerCase() === 'description'
    ) {
      description = collapseWhitespace(readAttribute(child, 'content') ?? '');
      break;
    }
  }
  const { insertAt, existingBlock, headPhase } = locateBlockSlot(html);
  const signatureBlock = readSignatureBlockFromHead(head);
  return {
    hash,
    spec,
    refusal,
    ...facts,
    description,
    insertAt,
    existingBlock,
    signatureBlock,
    splicesSafely: headPhase && inBody && existingBlock === undefined && signatureBlock === undefined,
  };
}

/** True when `element` is `<body>` or lies inside it (not in `<head>`, not in a template's contents). */
function isInBody(element: Element): boolean {
  for (let node: Element | undefined = element; node; node = node.parentNode as Element | undefined) {
    if (node.tagName === 'body' && node.namespaceURI === HTML_NS && node.parentNode?.nodeName === 'html')
      return true;
  }
  return false;
}

/** One parse of a page: its root and head, and the selected element's hash and refusal under `spec`. */
function readElement(html: string, selectorText: string, spec: PageSpec, origin?: PageOrigin) {
  const selector = compileCachedSelector(selectorText);
  const { document, ignoredStartTags } = parseDocument(html, { spec });
  const head = findChild(findChild(document, 'html'), 'head');
  const matches = selectAll(document, selector, 2);
  const element = matches[0];
  return {
    head,
    facts: readPageFacts(html, document, spec, origin),
    inBody: element !== undefined && isInBody(element),
    hash: element === undefined ? undefined : hashElement(element, spec),
    refusal: checkCoverage(html, ignoredStartTags, matches, selectorText, spec),
  };
}

/**
 * The `siegel-page/2` hash of a page: SHA-256 hex of the UTF-8 `innerHTML` of the first element matching
 * `selector` (default `main`), or `undefined` when no element matches.
 *
 * @example
 * ```ts
 * hashPage('<main>Hi</main>'); // sha256('Hi') = '3639efcd…'
 * ```
 * @throws {SiegelError} `invalid_options` when `options.selector` uses unsupported syntax.
 */
export function hashPage(html: string, options: AnalyzePageOptions = {}): string | undefined {
  const spec = options.spec ?? CURRENT_SPEC;
  const selector = compileCachedSelector(options.selector ?? DEFAULT_SELECTOR);
  const element = selectFirst(parseDocument(html, { spec }).document, selector);
  return element === undefined ? undefined : hashElement(element, spec);
}

/** SHA-256 hex of the element's `innerHTML` under `spec`, hashed part by part as it is serialized. */
function hashElement(element: Element, spec: PageSpec): string {
  const hash = createHash('sha256');
  serializeContentTo(element, spec, (part) => hash.update(part, 'utf8'));
  return hash.digest('hex');
}

/**
 * The bytes `siegel-page/2` hashes, as a string: the `innerHTML` of the first element matching `selector`
 * (default `main`), or `undefined` when nothing matches. Pure: used by Node and by the browser verify script.
 *
 * @example
 * ```ts
 * readPageContent('<main><p>Hi &amp; bye</p></main>'); // '<p>Hi &amp; bye</p>'
 * ```
 * @throws {SiegelError} `invalid_options` for unsupported selector syntax.
 */
export function readPageContent(
  html: string,
  selector: string = DEFAULT_SELECTOR,
  spec: PageSpec = CURRENT_SPEC,
): string | undefined {
  const element = selectFirst(parseDocument(html, { spec }).document, compileCachedSelector(selector));
  return element === undefined ? undefined : serializeContent(element, spec);
}

/**
 * SHA-256 of the UTF-8 bytes of `content`, lowercase hex — the hash step of `siegel-page/2`.
 *
 * @example
 * ```ts
 * hashContent('Hi'); // '3639efcd08abb273b1619e82e78c29a7df02c1051b1820e99fc395dcaa3326b8'
 * ```
 */
export function hashContent(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** What the signing pipeline needs from one parse of a page. */
export interface ParsedPage {
  hash: string | undefined;
  /** Why the page must not be signed; `undefined` when it may. */
  refusal: Refusal | undefined;
  title: string | undefined;
  /** As {@link PageAnalysis.baseHref}: the event records the base URL it sets. */
  baseHref: string | undefined;
  /** As {@link PageAnalysis.loads}: the manifest's `loads` tag for the page. */
  loads: string[];
  description: string | undefined;
  place: BlockPlace;
  /** `place` in UTF-8 byte offsets. */
  bytePlace: BlockPlace;
  /** As {@link PageAnalysis.splicesSafely}: false means the signed page is read back before it is written. */
  splicesSafely: boolean;
}

/**
 * Parse a page's raw bytes (valid UTF-8) for signing (in this thread, or in a parse worker). A page a
 * browser would not decode as UTF-8 (page/encoding.ts: a `<meta>` naming another encoding, or none for
 * bytes beyond ASCII) is refused, whatever its element.
 */
export function parsePageForSigning(input: Buffer, selector: string, origin?: PageOrigin): ParsedPage {
  const html = input.toString('utf8');
  const analysis = analyzePage(html, { selector, origin });
  const place: BlockPlace = {
    insertAt: analysis.insertAt,
    ...(analysis.existingBlock ? { existingBlock: analysis.existingBlock } : {}),
  };
  return {
    hash: analysis.hash,
    refusal: checkEncoding(input) ?? analysis.refusal,
    title: analysis.title,
    baseHref: analysis.baseHref,
    loads: analysis.loads,
    description: analysis.description,
    place,
    bytePlace: toBytePlace(html, place, input.length),
    splicesSafely: analysis.splicesSafely,
  };
}

/** What checking a page's signature needs from one parse of it (`siegel verify`); its title and `<base href>` as {@link PageFacts}. */
export interface PageCheckReading extends PageFacts {
  /** As {@link PageAnalysis.hash}, under `spec`. */
  hash: string | undefined;
  /** The spec the page was read by. */
  spec: PageSpec;
  /** As {@link PageAnalysis.refusal}. */
  refusal: Refusal | undefined;
  /** Why a browser would not decode the page's bytes as UTF-8 (page/encoding.ts); `undefined` when it would. */
  encoding: Refusal | undefined;
  /** The signature block the page carries; `undefined` when none. */
  signatureBlock: SignatureBlockInfo | undefined;
}

/**
 * Read a page's raw bytes for checking its signature (in this thread, or in a parse worker): one parse, and
 * nothing a signing run needs besides (no description or block place). `contentType`: the HTTP
 * header the page was served with, which outranks its `<meta>` (none for a file).
 * @throws {SiegelError} `invalid_options` when `selector` uses unsupported syntax.
 */
export function readPageForCheck(
  input: Buffer,
  selector: string,
  options: { spec?: PageSpec; contentType?: string | undefined; origin?: PageOrigin | undefined } = {},
): PageCheckReading {
  const spec = options.spec ?? CURRENT_SPEC;
  const { head, hash, refusal, facts } = readElement(input.toString('utf8'), selector, spec, options.origin);
  return {
    hash,
    spec,
    refusal,
    ...facts,
    encoding: checkEncoding(input, { contentType: options.contentType ?? null }),
    signatureBlock: readSignatureBlockFromHead(head),
  };
}
