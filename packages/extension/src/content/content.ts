/**
 * The content script, on every page at `document_end` (the `<head>` parsed, so a signed page's check starts
 * while its subresources still load): the DOM's side. A page without a Siegel block in its `<head>` (no
 * `nostr:*` meta, no `nostr-verification` or `nostr:` alternate link) is left alone — one `querySelector`,
 * no listener, no message, no request. A page with one is announced to the background worker (its live
 * `<head>`, which the background reads with core's block reader); what the tab shows is read at `load`
 * (live-checks.ts' `readLive`), and the live checks end when the background sends the served element. A
 * client-side navigation (the Navigation API's `navigatesuccess`, `popstate`, a replaced `<main>`)
 * announces the page again; a later change inside the checked element re-runs the live checks and reports
 * them.
 */
import type { LiveFindings, LiveRequest, LiveUpdate, PageMessage } from '../common/messages.js';
import { checkLive, type LiveState, readLive } from './live-checks.js';

const BLOCK =
  'meta[name^="nostr:" i], link[rel~="nostr-verification" i], link[rel~="alternate" i][href^="nostr:" i]';
/** Largest `<head>` sent to the background, in characters. */
const MAX_HEAD = 256 * 1024;

let announced: string | undefined;
let lastRequest: LiveRequest | undefined;
let lastMain: Element | null = null;
let lastCodes = '';
let observer: MutationObserver | undefined;
let pending: ReturnType<typeof setTimeout> | undefined;
/** What the tab showed at `load` (`readLive`), until the page changes: the first live check needs only the rest. */
let prepared: LiveState | undefined;
/** The element every Siegel page signs (the background's requests name it). */
const SIGNED = 'main';

function announce(force = false): void {
  const head = document.head;
  if (!head?.querySelector(BLOCK)) {
    // Navigated in place to a page without a block: the tab's state of the last page no longer applies.
    if (announced !== undefined)
      void chrome.runtime.sendMessage({ type: 'siegel:gone' }).catch(() => undefined);
    announced = undefined;
    lastRequest = undefined;
    return;
  }
  if (!force && announced === location.href) return;
  announced = location.href;
  lastRequest = undefined;
  lastMain = document.querySelector('main');
  const message: PageMessage = {
    type: 'siegel:page',
    url: location.href,
    head: head.outerHTML.slice(0, MAX_HEAD),
  };
  void chrome.runtime.sendMessage(message).catch(() => undefined);
}

const codesOf = (findings: LiveFindings) =>
  findings.problems.map((problem) => `${problem.code}:${problem.message}`).join('\n');

/** Re-run the live checks after the page changed; report only when the findings did. */
function recheck(): void {
  pending = undefined;
  if (document.querySelector('main') !== lastMain || location.href !== announced) {
    announce(true);
    return;
  }
  if (!lastRequest) return;
  const findings = checkLive(lastRequest);
  const codes = codesOf(findings);
  if (codes === lastCodes) return;
  lastCodes = codes;
  const update: LiveUpdate = { type: 'siegel:live-update', url: location.href, findings };
  void chrome.runtime.sendMessage(update).catch(() => undefined);
}

function watch(): void {
  if (observer) return;
  observer = new MutationObserver(() => {
    prepared = undefined;
    if (lastRequest && pending === undefined) pending = setTimeout(recheck, 100);
  });
  observer.observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
}

/** The background's live request: the served element, to compare what the tab shows with. */
function answerLive(
  message: unknown,
  _sender: chrome.runtime.MessageSender,
  sendResponse: (response?: unknown) => void,
): boolean | undefined {
  const request = message as LiveRequest;
  if (request?.type !== 'siegel:live') return undefined;
  // What the reader sees is judged once the page has loaded (its stylesheets applied, its load-time scripts
  // run), though the check itself started at `document_end`, as soon as the block was parsed.
  afterLoad(() => {
    // A change not yet delivered to the observer makes what was read at `load` stale too.
    if (observer && observer.takeRecords().length > 0) prepared = undefined;
    const live = prepared?.selector === request.selector ? prepared : undefined;
    prepared = undefined;
    lastRequest = request;
    lastMain = document.querySelector('main');
    const findings = checkLive(request, live);
    lastCodes = codesOf(findings);
    sendResponse(findings);
    watch();
  });
  return true; // the answer may come after `load`
}

function afterLoad(run: () => void): void {
  if (document.readyState === 'complete') run();
  else addEventListener('load', run, { once: true });
}

// A page without a block gets nothing more than this one query: no listener, no message.
if (document.head?.querySelector(BLOCK)) {
  chrome.runtime.onMessage.addListener(answerLive);
  announce();
  // What the tab shows is read at `load`, while the background still fetches the served page; any change
  // after that (the observer) discards it, and the live check reads the tab again.
  afterLoad(() => {
    prepared = readLive(SIGNED);
    watch();
  });
  const navigation = (globalThis as { navigation?: EventTarget }).navigation;
  navigation?.addEventListener('navigatesuccess', () => announce());
  navigation?.addEventListener('currententrychange', () => announce());
  addEventListener('popstate', () => announce());
  addEventListener('pageshow', (event) => {
    if ((event as PageTransitionEvent).persisted) announce(true);
  });
}
