/**
 * One served page read the way every browser verifier reads it (the verify page, the extension's background):
 * its bytes decoded as a browser would (`checkEncoding`: BOM, the `Content-Type` charset, `<meta charset>`),
 * parsed with the signer's parser (parse5) under the event's spec — never the live DOM, which scripts and
 * hydration change — its block read from `<head>`, its selected element hashed and its coverage checked.
 * The rule book (`judgePage`) decides from the result; nothing is judged here.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { checkCoverage } from '../../page/coverage.js';
import { checkEncoding } from '../../page/encoding.js';
import { type PageOrigin, readPageFacts } from '../../page/page-facts.js';
import { CURRENT_SPEC, findChild, type PageSpec, parseDocument, serializeContent } from '../../page/parse.js';
import { compileCachedSelector, selectAll } from '../../page/selector.js';
import { readSignatureBlockFromHead, type SignatureBlockInfo } from '../../page/signature-block-read.js';
import type { KnownLoads } from '../manifest-evidence.js';
import type { PageReading } from '../rules.js';

/** A served page as read for `judgePage`. */
export interface ServedPage {
  /** The bytes decoded as UTF-8 (what was hashed). */
  html: string;
  /** The signature block of the served page's `<head>` (`undefined`: none). */
  block: SignatureBlockInfo | undefined;
  /** The reading `judgePage`'s `readPage` returns. */
  reading: PageReading;
  /** The selected element's `innerHTML` as serialized for the hash (`undefined`: no element). */
  content: string | undefined;
  /**
   * With `origin`: the page's loads against it, for the manifest gathering's `known` (it reads them under
   * the current spec, so only a page of the current spec gives them; else it parses the page again).
   */
  known?: KnownLoads;
}

/** SHA-256 hex of `text` (UTF-8): `crypto.subtle` where there is one (secure contexts), else noble. */
export async function hashText(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  if (globalThis.crypto?.subtle)
    return bytesToHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
  return bytesToHex(sha256(bytes));
}

/**
 * Read a served page for the rule book.
 *
 * @example
 * ```ts
 * const served = await readServedPage(bytes, { contentType, selector: 'main', spec });
 * judgePage({ selector: 'main', readPage: () => served.reading, block: served.block, event, address });
 * ```
 */
export async function readServedPage(
  bytes: Uint8Array,
  options: { contentType: string | null; selector: string; spec: PageSpec; origin?: PageOrigin },
): Promise<ServedPage> {
  const { selector, spec } = options;
  const encoding = checkEncoding(bytes, { contentType: options.contentType });
  const html = new TextDecoder().decode(bytes);
  const { document: parsed, ignoredStartTags } = parseDocument(html, { spec });
  const block = readSignatureBlockFromHead(findChild(findChild(parsed, 'html'), 'head'));
  const matches = selectAll(parsed, compileCachedSelector(selector), 2);
  const content = matches[0] ? serializeContent(matches[0], spec) : undefined;
  const facts = readPageFacts(html, parsed, spec, options.origin);
  const reading: PageReading = {
    hash: content === undefined ? undefined : await hashText(content),
    refusal: encoding ?? checkCoverage(html, ignoredStartTags, matches, selector, spec),
    ...facts,
    // The reading judges no loads of its own, as without `origin`: the gathering's, against the site its
    // manifest names, do (`known` hands them over when that site is `origin`'s).
    loads: [],
  };
  const known =
    options.origin && spec === CURRENT_SPEC ? { ...options.origin, loads: facts.loads } : undefined;
  return { html, block, reading, content, ...(known ? { known } : {}) };
}
