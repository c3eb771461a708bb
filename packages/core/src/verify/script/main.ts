/**
 * The shared verify script (`siegel-verify.js`), bundled for the browser by `scripts/build-verify-script.mjs`.
 * It runs on `verify/{event id}/index.html` (see `renderVerifyPage`, the event embedded) and on the
 * site-wide `verify/index.html` (see `renderLookupPage`: the event named in the URL, read from the site or
 * from the `nevent`'s relays, lookup.ts). It gathers the facts — the event, the signed page fetched from the
 * site and parsed with the signer's parser (parse5, bundled — never the live DOM, which scripts and
 * hydration change), its title and `<base href>`, the block that page carries, and the address it was
 * fetched at — and the rule book
 * (`../rules.ts`, the same `judgePage` as `siegel verify`) decides.
 * The verdict goes into `#siegel-status` as text (code spans as `<code>`: code-spans.ts) and as
 * `data-state` (`valid` | `invalid` | `not_found`, or `error` when there was nothing to judge) with `data-reason` (the first problem's code, `ok` when valid)
 * and `data-codes` (every problem's code) for tools and tests; beside it, the address it checked and whether
 * the reader came from there (`document.referrer`, judged by the rule book: checked-page.ts). Once valid, the signer's NIP-05 name is
 * shown when their profile on the relays names one that its domain confirms (identity.ts).
 */
import {
  createProblem,
  decideVerdict,
  describeCoverage,
  type EventEvidence,
  judgePage,
  type Problem,
  type Verdict,
} from '../rules.js';
import { pickRelays } from './browser-relays.js';
import { type CheckedPage, showCheckedPage } from './checked-page.js';
import { showWithCode } from './code-spans.js';
import { showIdentity } from './identity.js';
import { LookupFailure, lookUpEvent } from './lookup.js';
import { readServedPage } from './served-page.js';
import { showSignedContent } from './show-content.js';
import { gatherSiteManifest } from './site-manifest-check.js';

/** `data-state`: the rule book's verdict, or `error` when there was nothing to judge (no event named, a crash). */
type State = Verdict | 'error';

interface Outcome {
  state: State;
  /** `ok`, the first problem's code, or why nothing was judged (`no-event`, `other-site`, `exception`). */
  reason: string;
  /** Every problem's code, errors first (`data-codes`). */
  codes: string[];
  message: string;
  /** When valid: the key the page's block names (and the event is signed by) — the only one whose NIP-05 is shown. */
  signer?: string;
  /** When the page was read: the address checked and whether the reader came from it. */
  checked?: CheckedPage;
}

function shortDate(seconds: number): string {
  return new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** The event to check (as found, or why it is missing), the page it covers and the relays known so far. */
type Target = { event: EventEvidence; pagePath: string; relays: string[] };

async function readTarget(status: HTMLElement): Promise<Target | Outcome> {
  if (status.dataset.lookup !== undefined) {
    try {
      const found = await lookUpEvent(status);
      return {
        event: { found: found.event, from: found.from },
        pagePath: found.pagePath,
        relays: found.relays,
      };
    } catch (error) {
      if (!(error instanceof LookupFailure)) throw error;
      // An outage (not found) or another event than the one named are judged as every verifier judges them.
      if (error.reason === 'not-found')
        return fromProblems([createProblem('event.not_found', error.message)]);
      if (error.reason === 'event-id') return fromProblems([createProblem('event.not_named', error.message)]);
      if (error.reason === 'malformed')
        return fromProblems([createProblem('event.malformed', error.message)]);
      return { state: 'error', reason: error.reason, codes: [], message: error.message };
    }
  }
  const source = document.getElementById('siegel-event')?.textContent;
  if (!source)
    return { state: 'error', reason: 'no-event', codes: [], message: 'This page carries no event to check.' };
  let found: unknown;
  try {
    found = JSON.parse(source);
  } catch {
    return fromProblems([createProblem('event.malformed', 'the embedded event is not JSON')]);
  }
  return { event: { found }, pagePath: status.dataset.page ?? '', relays: [] };
}

/** The outcome of not-valid problems (the rule book's verdict), worded for the reader. */
function fromProblems(problems: Problem[]): Outcome {
  const verdict = decideVerdict(problems);
  const errors = problems.filter((problem) => problem.severity === 'error');
  const headline = verdict === 'not_found' ? 'Not found' : 'Invalid';
  return {
    state: verdict,
    reason: errors[0]?.code ?? 'ok',
    codes: problems.map((problem) => problem.code),
    message: `${headline}: ${errors.map((problem) => problem.message).join('; ')}.`,
  };
}

async function check(status: HTMLElement, target: Target): Promise<Outcome> {
  const { event, pagePath } = target;
  const selector = status.dataset.selector || 'main';
  // The event alone first: a page is fetched only for an event whose shape and spec are known.
  const alone = judgePage({ selector, event });
  if (!alone.event || alone.spec === undefined) return fromProblems(alone.problems);
  const { spec } = alone;
  status.dataset.spec = spec;
  let address: string;
  let contentType: string | null;
  let bytes: Uint8Array;
  try {
    const response = await fetch(pagePath, { cache: 'no-store', credentials: 'same-origin' });
    if (!response.ok) {
      const problem = createProblem('page.unavailable', `could not load the page: HTTP ${response.status}`);
      return fromProblems([...alone.problems, problem]);
    }
    // The bytes, read as a browser reads them (served-page.ts): a page it would not decode as UTF-8 is not
    // verifiable.
    bytes = new Uint8Array(await response.arrayBuffer());
    contentType = response.headers.get('content-type');
    address = response.url;
  } catch (error) {
    const problem = createProblem('page.unavailable', `could not load the page: ${String(error)}`);
    return fromProblems([...alone.problems, problem]);
  }
  const { block, reading, content } = await readServedPage(bytes, { contentType, selector, spec });
  for (const relay of pickRelays(block?.relays ?? []))
    if (!target.relays.includes(relay)) target.relays.push(relay);
  status.textContent = 'Checking the site’s manifest…';
  const manifest = await gatherSiteManifest(alone.event, target.relays, bytes);
  const judgement = judgePage({
    selector,
    readPage: () => reading,
    block,
    event,
    address,
    referrer: document.referrer,
    ...(manifest ? { manifest } : {}),
  });
  const checked: CheckedPage = { address, referrer: judgement.referrer ?? 'none' };
  if (judgement.verdict !== 'valid') return { ...fromProblems(judgement.problems), checked };
  if (content !== undefined) showSignedContent(content);
  // The referrer's warning has its own place beside the address checked (checked-page.ts).
  const notes = judgement.problems
    .filter((problem) => problem.code !== 'referrer.other_page')
    .map((problem) => ` Note: ${problem.message}.`)
    .join('');
  return {
    checked,
    state: 'valid',
    reason: 'ok',
    codes: judgement.problems.map((problem) => problem.code),
    message: `Valid: the page’s ${selector} at this address is exactly what this key signed on ${shortDate(alone.event.created_at)} (${spec}).${notes}`,
    // Valid means the event is the one the block names, by the key it names (rules.ts): that key, no other.
    ...(block?.pubkey !== undefined ? { signer: block.pubkey } : {}),
  };
}

async function run(): Promise<void> {
  const status = document.getElementById('siegel-status');
  if (!status) return;
  let outcome: Outcome;
  let target: Target | Outcome | undefined;
  try {
    target = await readTarget(status);
    outcome = 'event' in target ? await check(status, target) : target;
  } catch (error) {
    outcome = {
      state: 'error',
      reason: 'exception',
      codes: [],
      message: `The check failed: ${String(error)}`,
    };
  }
  showWithCode(status, outcome.message);
  status.dataset.reason = outcome.reason;
  status.dataset.codes = outcome.codes.join(' ');
  status.dataset.state = outcome.state;
  if (outcome.checked) showCheckedPage(outcome.checked);
  if (outcome.state !== 'valid') return;
  // Beside "Valid", after the address checked, in one sentence: what it covers and what it cannot
  // (stylesheets, scripts).
  const coverage = document.createElement('p');
  coverage.id = 'siegel-coverage';
  showWithCode(coverage, describeCoverage(status.dataset.selector || 'main'));
  (document.getElementById('siegel-referrer') ?? status).after(coverage);
  if (outcome.signer !== undefined && target && 'event' in target)
    await showIdentity(outcome.signer, target.relays).catch(() => undefined);
  // For tools and tests: the identity step is over (`confirmed` when a NIP-05 name is shown).
  status.dataset.identity = document.getElementById('siegel-identity') ? 'confirmed' : 'none';
}

void run();
