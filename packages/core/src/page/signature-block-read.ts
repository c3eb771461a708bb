import { decode } from 'nostr-tools/nip19';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { findChild, parsePage, readAttribute } from './parse.js';
import { readBlockSpec } from './signature-block.js';

type Element = DefaultTreeAdapterTypes.Element;

/** What a page's signature block says, normalised to lowercase hex. Absent or unreadable values are `undefined`. */
export interface SignatureBlockInfo {
  /** Event id (from `nostr:event`, hex or `nevent`/`note`, else from the `nostr:` alternate link). */
  eventId?: string;
  /** Signer pubkey (from `nostr:pubkey`, hex or `npub`, else the `nevent`'s author). */
  pubkey?: string;
  /** Page hash (from `nostr:hash`, hex or `sha256:<hex>`). */
  hash?: string;
  /** `href` of `<link rel="nostr-verification">`. */
  verifyUrl?: string;
  /** The `nevent1…` of `<link rel="alternate" href="nostr:nevent1…">` (or of `nostr:event`), without `nostr:`. */
  nevent?: string;
  /** Relay hints carried by the `nevent`. */
  relays?: string[];
  /** The spec the block's opening comment names (`siegel-page/2`); informative — the event's `spec` tag decides. */
  spec?: string;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

function readHex(value: string): string | undefined {
  return HEX64.test(value) ? value.toLowerCase() : undefined;
}

/** Decode a NIP-19 entity (with or without `nostr:`), or `undefined` when it is not one. */
function decodeEntity(value: string): ReturnType<typeof decode> | undefined {
  try {
    return decode(value.replace(/^nostr:/i, ''));
  } catch {
    return undefined;
  }
}

function applyNevent(info: SignatureBlockInfo, value: string): void {
  const decoded = decodeEntity(value);
  if (decoded?.type === 'nevent') {
    info.nevent ??= value.replace(/^nostr:/i, '');
    info.eventId ??= decoded.data.id;
    if (decoded.data.author) info.pubkey ??= decoded.data.author;
    if (decoded.data.relays?.length) info.relays ??= decoded.data.relays;
  } else if (decoded?.type === 'note') {
    info.eventId ??= decoded.data;
  }
}

function readMeta(info: SignatureBlockInfo, name: string, content: string): void {
  const value = content.trim();
  if (name === 'nostr:event') {
    const hex = readHex(value);
    if (hex) info.eventId ??= hex;
    else applyNevent(info, value);
  } else if (name === 'nostr:pubkey') {
    const hex = readHex(value);
    if (hex) info.pubkey ??= hex;
    else {
      const decoded = decodeEntity(value);
      if (decoded?.type === 'npub') info.pubkey ??= decoded.data;
      else if (decoded?.type === 'nprofile') info.pubkey ??= decoded.data.pubkey;
    }
  } else if (name === 'nostr:hash') {
    const hex = readHex(value.replace(/^sha256:/i, ''));
    if (hex) info.hash ??= hex;
  }
}

/**
 * Read a signature block from the children of a parsed `<head>` (what {@link analyzePage} calls).
 *
 * @example
 * ```ts
 * readSignatureBlockFromHead(head)?.eventId;
 * ```
 */
export function readSignatureBlockFromHead(head: Element | undefined): SignatureBlockInfo | undefined {
  if (!head) return undefined;
  const info: SignatureBlockInfo = {};
  let found = false;
  let spec: string | undefined;
  for (const child of head.childNodes) {
    if (child.nodeName === '#comment') spec ??= readBlockSpec((child as { data: string }).data);
    if (!('tagName' in child)) continue;
    if (child.tagName === 'meta') {
      const name = readAttribute(child, 'name')?.toLowerCase();
      if (!name?.startsWith('nostr:')) continue;
      found = true;
      readMeta(info, name, readAttribute(child, 'content') ?? '');
    } else if (child.tagName === 'link') {
      const rel = (readAttribute(child, 'rel') ?? '').toLowerCase().split(/[ \t\n\f\r]+/);
      const href = (readAttribute(child, 'href') ?? '').trim();
      if (rel.includes('nostr-verification')) {
        found = true;
        info.verifyUrl ??= href;
      } else if (rel.includes('alternate') && /^nostr:/i.test(href)) {
        found = true;
        applyNevent(info, href);
      }
    }
  }
  if (found && spec) info.spec = spec;
  return found ? info : undefined;
}

/**
 * Read the signature block a page carries: Siegel's own, and the variants found in the wild — a hash
 * written `sha256:<hex>`, the event as `nevent1…` (or `note1…`), the pubkey as `npub1…`. Values are
 * normalised to lowercase hex. Returns `undefined` when the page has no `nostr:*` metadata in `<head>`.
 *
 * @example
 * ```ts
 * const block = readSignatureBlock(await readFile('dist/index.html', 'utf8'));
 * if (block?.hash !== hashPage(html)) console.warn('page changed since it was signed');
 * ```
 */
export function readSignatureBlock(html: string): SignatureBlockInfo | undefined {
  const head = findChild(findChild(parsePage(html), 'html'), 'head');
  return head === undefined ? undefined : readSignatureBlockFromHead(head);
}
