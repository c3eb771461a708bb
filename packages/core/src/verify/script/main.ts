/**
 * The shared verify script (`siegel-verify.js`), bundled for the browser by `scripts/build-verify-script.mjs`.
 * It runs on `verify/{event id}/index.html` (see `renderVerifyPage`, the event embedded) and on the
 * site-wide `verify/index.html` (see `renderLookupPage`: the event named in the URL, read from the site or
 * from the `nevent`'s relays, lookup.ts):
 * 1. the event's id is recomputed and its Schnorr signature verified;
 * 2. the signed page is fetched from the site and parsed with the signer's parser (parse5, bundled — never
 *    the live DOM, which scripts and hydration change);
 * 3. SHA-256 of the selected element's `innerHTML` is compared with the event's `x` tag.
 * The verdict goes into `#siegel-status` as text and as `data-state` (`valid` | `invalid` | `error`)
 * with `data-reason` (a stable code) for tools and tests. Once valid, the signer's NIP-05 name is shown
 * when their profile on the relays names one that its domain confirms (identity.ts).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { decode } from 'nostr-tools/nip19';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { checkCoverage } from '../../page/coverage.js';
import { parseDocument, readEventSpec, serializeContent } from '../../page/parse.js';
import { compileCachedSelector, selectAll, selectFirst } from '../../page/selector.js';
import { pickRelays } from './browser-relays.js';
import { showIdentity } from './identity.js';
import { LookupFailure, lookUpEvent } from './lookup.js';
import { showSignedContent } from './show-content.js';

type State = 'valid' | 'invalid' | 'error';

interface Verdict {
  state: State;
  reason: string;
  message: string;
}

async function hashText(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  // crypto.subtle exists only in secure contexts (https, localhost); plain http falls back to noble.
  if (globalThis.crypto?.subtle)
    return bytesToHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
  return bytesToHex(sha256(bytes));
}

function readTag(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((tag) => tag[0] === name)?.[1];
}

/** The relay hints of the fetched page's `nostr:nevent1…` link (where the signer's profile may be). */
function readBlockRelays(document: ReturnType<typeof parseDocument>['document']): string[] {
  const link = selectFirst(
    document,
    compileCachedSelector('head > link[rel="alternate"][href^="nostr:nevent1"]'),
  );
  const href = link?.attrs.find((attribute) => attribute.name === 'href')?.value.trim() ?? '';
  try {
    const decoded = decode(href.replace(/^nostr:/, ''));
    return decoded.type === 'nevent' ? pickRelays(decoded.data.relays ?? []) : [];
  } catch {
    return [];
  }
}

/** The `nostr:event` meta of the fetched page, to explain a mismatch (page re-signed since). */
function readBlockEventId(document: ReturnType<typeof parseDocument>['document']): string | undefined {
  const meta = selectFirst(document, compileCachedSelector('head > meta[name="nostr:event"]'));
  return meta?.attrs.find((attribute) => attribute.name === 'content')?.value.trim();
}

function shortDate(seconds: number): string {
  return new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** The event to check, the page it covers (relative to this page) and the relays known so far. */
type Target = { event: NostrEvent; pagePath: string; relays: string[] };

async function readTarget(status: HTMLElement): Promise<Target | Verdict> {
  if (status.dataset.lookup !== undefined) {
    try {
      return await lookUpEvent(status);
    } catch (error) {
      if (!(error instanceof LookupFailure)) throw error;
      const state = error.reason === 'event-id' ? 'invalid' : 'error';
      return { state, reason: error.reason, message: error.message };
    }
  }
  const source = document.getElementById('siegel-event')?.textContent;
  if (!source) return { state: 'error', reason: 'no-event', message: 'This page carries no event to check.' };
  return { event: JSON.parse(source) as NostrEvent, pagePath: status.dataset.page ?? '', relays: [] };
}

async function check(status: HTMLElement, target: Target): Promise<Verdict> {
  const { event, pagePath } = target;
  if (getEventHash(event) !== event.id) {
    return {
      state: 'invalid',
      reason: 'event-id',
      message: 'Invalid: the event id does not match the event’s content — the event was altered.',
    };
  }
  if (!verifyEvent(event)) {
    return {
      state: 'invalid',
      reason: 'signature',
      message: 'Invalid: the Schnorr signature does not match the event and its pubkey.',
    };
  }
  const expected = readTag(event, 'x');
  if (event.kind !== 1063 || !expected) {
    return {
      state: 'invalid',
      reason: 'event-kind',
      message: 'Invalid: this is not a page event (kind 1063 with an x tag).',
    };
  }
  const spec = readEventSpec(event);
  if (spec === undefined) {
    return {
      state: 'invalid',
      reason: 'spec',
      message: 'Not verifiable: the event names a page-hash spec this verifier does not know.',
    };
  }
  status.dataset.spec = spec;
  const selector = status.dataset.selector || 'main';
  let html: string;
  try {
    const response = await fetch(pagePath, { cache: 'no-store', credentials: 'same-origin' });
    if (!response.ok) {
      return {
        state: 'error',
        reason: 'fetch',
        message: `Could not load the page: HTTP ${response.status}.`,
      };
    }
    html = await response.text();
  } catch (error) {
    return { state: 'error', reason: 'fetch', message: `Could not load the page: ${String(error)}.` };
  }
  const { document: parsed, ignoredStartTags } = parseDocument(html, { spec });
  for (const relay of readBlockRelays(parsed)) if (!target.relays.includes(relay)) target.relays.push(relay);
  const matches = selectAll(parsed, compileCachedSelector(selector), 2);
  const element = matches[0];
  if (!element) {
    return {
      state: 'invalid',
      reason: 'no-element',
      message: `Invalid: the page has no element matching \`${selector}\`.`,
    };
  }
  const refusal = checkCoverage(html, ignoredStartTags, matches, selector, spec);
  if (refusal) {
    return {
      state: 'invalid',
      reason: refusal.code,
      message: `Not verifiable (${spec}): ${refusal.message}.`,
    };
  }
  const content = serializeContent(element, spec);
  const actual = await hashText(content);
  if (actual !== expected) {
    const blockId = readBlockEventId(parsed);
    const resigned =
      blockId && blockId !== event.id ? ` The page now names another signature event (${blockId}).` : '';
    return {
      state: 'invalid',
      reason: 'hash',
      message: `Invalid: the page’s ${selector} changed since it was signed. Its SHA-256 is now ${actual}; the signature covers ${expected}.${resigned}`,
    };
  }
  showSignedContent(content);
  return {
    state: 'valid',
    reason: 'ok',
    message: `Valid: the page’s ${selector} is exactly what this key signed on ${shortDate(event.created_at)} (${spec}).`,
  };
}

async function run(): Promise<void> {
  const status = document.getElementById('siegel-status');
  if (!status) return;
  let verdict: Verdict;
  let target: Target | Verdict | undefined;
  try {
    target = await readTarget(status);
    verdict = 'event' in target ? await check(status, target) : target;
  } catch (error) {
    verdict = { state: 'error', reason: 'exception', message: `The check failed: ${String(error)}` };
  }
  status.textContent = verdict.message;
  status.dataset.reason = verdict.reason;
  status.dataset.state = verdict.state;
  if (verdict.state === 'valid' && target && 'event' in target) {
    await showIdentity(target.event.pubkey, target.relays).catch(() => undefined);
    // For tools and tests: the identity step is over (`confirmed` when a NIP-05 name is shown).
    status.dataset.identity = document.getElementById('siegel-identity') ? 'confirmed' : 'none';
  }
}

void run();
