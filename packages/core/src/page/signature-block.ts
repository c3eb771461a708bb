import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { encodeNevent } from '../nostr/bech32.js';
import { HEX64 } from '../nostr/event-shape.js';
import { DEFAULT_SELECTOR } from './selector.js';

/** Text the opening comment of a new Siegel block starts with (after `<!--` and whitespace): the spec it was signed under. */
export const BLOCK_START_MARKER = 'siegel-page/2';

/** The spec an opening comment names (`siegel-page/1`, `siegel-page/2`, …), or `undefined` when it is no block start. */
export function readBlockSpec(commentText: string): string | undefined {
  return /^\s*(siegel-page\/[0-9]+)(?=[:\s]|$)/.exec(commentText)?.[1];
}

/** True when a comment's text opens a Siegel block of any spec version. */
export function isBlockStartMarker(commentText: string): boolean {
  return readBlockSpec(commentText) !== undefined;
}
/** Text of the closing comment of a Siegel block (after `<!--` and whitespace). */
export const BLOCK_END_MARKER = '/siegel-page';

/** Options of {@link renderSignatureBlock}. */
export interface RenderSignatureBlockOptions {
  /** Absolute URL of the page's verify page, `{site}/verify/{event id}`. Required. */
  verifyUrl: string;
  /** Relays where the event can be found; the first few become hints in the `nevent`. Default: none. */
  relays?: string[];
  /** The selector the hash covers, named in the opening comment. Default `'main'`. */
  selector?: string;
  /**
   * The reader's mark (docs/mark.md): one more line before the closing comment, the script of the
   * `<siegel-mark>` element with its links' settings. Default: none.
   */
  mark?: { src: string; server?: string | undefined; extension?: string | undefined } | undefined;
}

/**
 * The block's line for the reader's mark: a classic deferred script (not a module, which would make every
 * verifier of the page hash every JS chunk of the site), its settings as `data-*` attributes, escaped.
 *
 * @example
 * ```ts
 * renderMarkLine({ src: '/verify/siegel-mark.js', server: 'https://files.example' });
 * // '<script src="/verify/siegel-mark.js" data-server="https://files.example" defer></script>'
 * ```
 */
export function renderMarkLine(mark: NonNullable<RenderSignatureBlockOptions['mark']>): string {
  const server = mark.server ? ` data-server="${escapeHtml(mark.server)}"` : '';
  const extension = mark.extension ? ` data-extension="${escapeHtml(mark.extension)}"` : '';
  return `<script src="${escapeHtml(mark.src)}"${server}${extension} defer></script>`;
}

function requireHex(value: unknown, what: string): string {
  if (typeof value !== 'string' || !HEX64.test(value)) {
    throw new SiegelError(
      'invalid_options',
      `Expected ${what} as 64 lowercase hex characters, got \`${String(value)}\`.`,
    );
  }
  return value;
}

/** The `x` tag of a page event: the hash the block carries. */
function readHashTag(event: NostrEvent): string {
  const tag = event.tags.find((candidate) => candidate[0] === 'x');
  return requireHex(tag?.[1], 'the event `x` tag (page hash)');
}

/**
 * Render the `siegel-page/2` signature block for a signed page event, exactly as docs/signature-block.md describes it:
 * an opening comment, `nostr:event`/`nostr:pubkey`/`nostr:hash` metas, the `nostr-verification` link,
 * the NIP-21 `rel="alternate"` `nostr:nevent1…` link, with `mark` the mark's script, and the closing comment.
 * Every value is escaped.
 * The returned string starts with `<!--` and ends with `-->` (no newline around it).
 *
 * @example
 * ```ts
 * const block = renderSignatureBlock(event, { verifyUrl: `https://example.com/verify/${event.id}` });
 * ```
 * @throws {SiegelError} `invalid_options` when the event id, pubkey or `x` tag is not 64 lowercase hex.
 */
export function renderSignatureBlock(event: NostrEvent, options: RenderSignatureBlockOptions): string {
  const id = requireHex(event.id, 'the event id');
  const pubkey = requireHex(event.pubkey, 'the event pubkey');
  const hash = readHashTag(event);
  const relays = (options.relays ?? []).slice(0, 3);
  const nevent = encodeNevent({ id, author: pubkey, kind: event.kind, relays });
  const selector = options.selector ?? DEFAULT_SELECTOR;
  const covered = selector === DEFAULT_SELECTOR ? 'main.innerHTML' : `innerHTML of ${selector}`;
  return [
    `<!-- ${BLOCK_START_MARKER}: signed by Siegel; verify: sha256 of ${escapeComment(covered)} -->`,
    `<meta name="nostr:event" content="${escapeHtml(id)}">`,
    `<meta name="nostr:pubkey" content="${escapeHtml(pubkey)}">`,
    `<meta name="nostr:hash" content="${escapeHtml(hash)}">`,
    `<link rel="nostr-verification" href="${escapeHtml(options.verifyUrl)}">`,
    `<link rel="alternate" href="nostr:${escapeHtml(nevent)}">`,
    ...(options.mark ? [renderMarkLine(options.mark)] : []),
    `<!-- ${BLOCK_END_MARKER} -->`,
  ].join('\n');
}

/**
 * Put `block` into `html` by source offsets: replace the existing block's range when there is one,
 * otherwise insert it (followed by a newline) at `insertAt`. Every other character stays as it was, and
 * applying the same block again to the result (after a fresh {@link analyzePage}) gives the same text.
 *
 * @example
 * ```ts
 * const analysis = analyzePage(html);
 * const signed = applySignatureBlock(html, analysis, renderSignatureBlock(event, { verifyUrl }));
 * ```
 * @throws {SiegelError} `invalid_options` when the offsets lie outside `html`.
 */
export function applySignatureBlock(
  html: string,
  analysis: { insertAt: number; existingBlock?: { start: number; end: number } | undefined },
  block: string,
): string {
  const { insertAt, existingBlock } = analysis;
  if (existingBlock) {
    const { start, end } = existingBlock;
    if (
      !(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= html.length)
    ) {
      throw new SiegelError('invalid_options', `Block range \`${start}..${end}\` lies outside the page.`);
    }
    return html.slice(0, start) + block + html.slice(end);
  }
  if (!(Number.isInteger(insertAt) && insertAt >= 0 && insertAt <= html.length)) {
    throw new SiegelError('invalid_options', `Insert offset \`${insertAt}\` lies outside the page.`);
  }
  return `${html.slice(0, insertAt)}${block}\n${html.slice(insertAt)}`;
}

const REPLACEMENTS: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * Escape text for a double-quoted HTML attribute value or for element text: `&`, `"`, `'`, `<`, `>`.
 *
 * @example
 * ```ts
 * escapeHtml('"><script>'); // '&quot;&gt;&lt;script&gt;'
 * ```
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&"'<>]/g, (character) => REPLACEMENTS[character] ?? character);
}

/**
 * Make text safe inside an HTML comment: no `<` or `>` (so no `-->`, `--!>`, `<!--`) and no `--`.
 *
 * @example
 * ```ts
 * escapeComment('a --> b'); // 'a -&#45;&gt; b'
 * ```
 */
export function escapeComment(value: string): string {
  return value.replace(/[<>]/g, (character) => REPLACEMENTS[character] ?? character).replace(/--/g, '-&#45;');
}
