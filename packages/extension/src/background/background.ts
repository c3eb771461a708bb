/**
 * The background worker: the network's side. It owns every request the extension makes (the page fetched
 * again, the site's event and manifest files, relays, NIP-05) and every tab's state. A content script
 * announces a page that carries a block (`siegel:page`); the worker shows CHECKING, runs the check
 * (check-page.ts) with the tab's live findings, and shows the state (action.ts). A later live change
 * (`siegel:live-update`) replaces the live findings and the state. The popup asks for a tab's record,
 * accepts or pins its signer and saves its evidence (evidence.ts).
 */
import { createEvidenceRecorder } from '@siegel/core/evidence';
import type { Problem } from '@siegel/core/rules';
import type { CheckRecord, LiveFindings, LiveRequest, LiveUpdate, PageMessage } from '../common/messages.js';
import { acceptKey, pinSigner } from '../common/settings.js';
import { decideState } from '../common/states.js';
import { clearState, showState } from './action.js';
import { type CheckFacts, type CheckResult, checkPage } from './check-page.js';
import { gatherEvidence } from './evidence.js';

interface TabCheck {
  /** Increases with every check of the tab: only the newest one's result is shown. */
  run: number;
  url: string;
  head: string;
  record?: CheckRecord;
  facts?: CheckFacts;
}

const tabs = new Map<number, TabCheck>();
let runs = 0;

async function run(tabId: number, url: string, head: string): Promise<void> {
  const run = ++runs;
  tabs.set(tabId, { run, url, head });
  // CHECKING is shown while the check runs: neither the check nor its final state waits on the toolbar (the
  // browser applies one context's calls in order, so the final state still comes after it).
  void showState(tabId, 'checking');
  const askLive = async (request: LiveRequest) =>
    (await chrome.tabs.sendMessage(tabId, request, { frameId: 0 }).catch(() => undefined)) as
      | LiveFindings
      | undefined;
  let result: CheckResult;
  try {
    result = await checkPage(url, head, askLive);
  } catch (error) {
    const problem: Problem = {
      code: 'page.unavailable',
      severity: 'error',
      message: `the check failed: ${(error as Error).message}`,
    };
    result = {
      record: { url, state: 'unverified', problems: [problem], checkedAt: Date.now(), relays: [] },
      facts: { recorder: createEvidenceRecorder() },
    };
  }
  const current = tabs.get(tabId);
  if (current?.run !== run) return;
  current.record = result.record;
  current.facts = result.facts;
  await showState(tabId, result.record.state, result.record.problems);
  const nip05 = await result.identity?.catch(() => undefined);
  if (nip05 && result.record.signer && tabs.get(tabId)?.run === run) result.record.signer.nip05 = nip05;
}

async function updateLive(tabId: number, update: LiveUpdate): Promise<void> {
  const current = tabs.get(tabId);
  const record = current?.record;
  if (!record || record.url !== new URL(update.url).href.replace(/#.*$/, '')) return;
  const others = record.problems.filter((problem) => !problem.code.startsWith('live.'));
  record.live = update.findings;
  record.problems = [...update.findings.problems, ...others];
  record.state = decideState(record.problems);
  await showState(tabId, record.state, record.problems);
}

/** What the popup may ask. */
type PopupMessage =
  | { type: 'siegel:record'; tabId: number }
  | { type: 'siegel:accept'; tabId: number }
  | { type: 'siegel:pin'; tabId: number }
  | { type: 'siegel:evidence'; tabId: number };

async function answerPopup(message: PopupMessage): Promise<unknown> {
  const current = tabs.get(message.tabId);
  const record = current?.record;
  if (message.type === 'siegel:record') return record;
  if (message.type === 'siegel:evidence')
    return record && current?.facts && gatherEvidence(record, current.facts);
  if (!current || !record?.signer) return undefined;
  const origin = new URL(record.url).origin;
  if (message.type === 'siegel:accept') await acceptKey(origin, record.signer.pubkey);
  if (message.type === 'siegel:pin') await pinSigner(origin, record.signer.npub);
  await run(message.tabId, current.url, current.head);
  return tabs.get(message.tabId)?.record;
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const typed = message as { type?: string };
  const tabId = sender.tab?.id;
  const fromSite =
    tabId !== undefined && sender.frameId === 0 && !sender.url?.startsWith(chrome.runtime.getURL(''));
  if (typed.type === 'siegel:page' && fromSite && tabId !== undefined) {
    const page = message as PageMessage;
    void run(tabId, page.url, page.head);
    return undefined;
  }
  if (typed.type === 'siegel:gone' && fromSite && tabId !== undefined) {
    tabs.delete(tabId);
    void clearState(tabId);
    return undefined;
  }
  if (typed.type === 'siegel:live-update' && fromSite && tabId !== undefined) {
    void updateLive(tabId, message as LiveUpdate);
    return undefined;
  }
  // Only the extension's own pages (the popup, also when opened in a tab) may ask these: never a site's tab.
  const own = sender.url?.startsWith(chrome.runtime.getURL('')) === true;
  if (own && typeof typed.type === 'string' && typed.type.startsWith('siegel:')) {
    answerPopup(message as PopupMessage).then(sendResponse, () => sendResponse(undefined));
    return true;
  }
  return undefined;
});

chrome.tabs.onRemoved.addListener((tabId) => tabs.delete(tabId));
