/**
 * One check of one tab, in the background worker (the network's side): the event the block names
 * (event-source.ts), the page fetched again as served (same URL, no cookies) and read with the signer's
 * parser (`readServedPage`), the site manifest (`createBrowserManifestGatherer`), the reader's pin and
 * trust (trust.ts) — and the rule book's `judgePage` decides. The live checks come from the tab's content
 * script (`askLive`); the state is {@link decideState}'s. Every fact is kept for the popup and the evidence.
 */
import {
  browserManifestIo,
  type KnownLoads,
  MAX_RELAY_HINTS,
  RelayPool,
  readServedPage,
  readSignatureBlock,
  readSignerNip05,
} from '@siegel/core/browser';
import { createEvidenceRecorder, type EvidenceRecorder } from '@siegel/core/evidence';
import {
  createProblem,
  describeCoverage,
  type EventEvidence,
  judgePage,
  type Problem,
} from '@siegel/core/rules';
import { npubEncode } from 'nostr-tools/nip19';
import type { CheckRecord, LiveFindings, LiveRequest, SignerFacts } from '../common/messages.js';
import { currentSettings } from '../common/settings.js';
import { decideState } from '../common/states.js';
import { eventFileUrl, findEvent } from './event-source.js';
import { type BoundedResponse, fetchBounded, MAX_PAGE_BYTES } from './read-bounded.js';
import { judgeTrust, readExpected } from './trust.js';

/** The selector every Siegel page signs. */
const SELECTOR = 'main';

/** What a check recorded besides its result, for the evidence file (`@siegel/core/evidence`). */
export interface CheckFacts {
  served?: { url: string; status: number; headers: Array<[string, string]>; bytes: Uint8Array };
  /** The event as judged. */
  event?: EventEvidence;
  expected?: { pubkey?: string; nip05?: string };
  /** Every relay answer and site manifest file the check read. */
  recorder: EvidenceRecorder;
}

/** A check's record, its facts, and the signer's NIP-05 name still being looked up. */
export interface CheckResult {
  record: CheckRecord;
  facts: CheckFacts;
  identity?: Promise<SignerFacts['nip05'] | undefined>;
}

/** Ask the tab's content script what the reader's tab shows. */
export type AskLive = (request: LiveRequest) => Promise<LiveFindings | undefined>;

const readTag = (event: { tags: string[][] }, name: string) => event.tags.find((tag) => tag[0] === name)?.[1];

/**
 * Per site root, the manifest address its last page's event named, in this worker's memory only (a reader
 * goes from page to page of one site): the next page's check starts that lookup while its event is still
 * being read. A guess, and a fresh lookup: a wrong one costs only its queries.
 */
const lastAddress = new Map<string, string>();
const MAX_REMEMBERED_SITES = 100;
/** The worker's relay connections, kept between queries and checks (closed after 30 s without one). */
const relayPool = new RelayPool();
function rememberAddress(siteRoot: string, a: string): void {
  lastAddress.delete(siteRoot);
  lastAddress.set(siteRoot, a);
  for (const oldest of lastAddress.keys()) {
    if (lastAddress.size <= MAX_REMEMBERED_SITES) break;
    lastAddress.delete(oldest);
  }
}

/** Same-origin stylesheets and the `<style>` texts the served page has: whose hiding is the author's. */
function authorStyles(
  html: string,
  address: string,
): Pick<LiveRequest, 'authorSheets' | 'authorStyles' | 'scripted'> {
  const origin = new URL(address).origin;
  const sheets: string[] = [];
  for (const match of html.matchAll(/<link\b[^>]*>/gi)) {
    const tag = match[0];
    if (!/\brel\s*=\s*["']?[^"'>]*\bstylesheet\b/i.test(tag)) continue;
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    const value = href?.[1] ?? href?.[2] ?? href?.[3];
    if (value === undefined) continue;
    try {
      const url = new URL(value.replaceAll('&amp;', '&'), address);
      if (url.origin === origin) sheets.push(url.href);
    } catch {}
  }
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((match) => match[1] ?? '');
  let scripted = false;
  for (const match of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = /\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(match[0]);
    const value = src?.[1] ?? src?.[2] ?? src?.[3];
    try {
      if (value === undefined || new URL(value.replaceAll('&amp;', '&'), address).origin === origin)
        scripted = true;
    } catch {}
  }
  return { authorSheets: sheets, authorStyles: styles, scripted };
}

/**
 * Check the page at `url` whose live `<head>` is `head`.
 *
 * @example
 * ```ts
 * const { record } = await checkPage(tab.url, headHtml, (request) => chrome.tabs.sendMessage(tabId, request));
 * ```
 */
export async function checkPage(url: string, head: string, askLive: AskLive): Promise<CheckResult> {
  const page = new URL(url);
  page.hash = '';
  const settings = await currentSettings();
  const facts: CheckFacts = { recorder: createEvidenceRecorder() };
  const record: CheckRecord = {
    url: page.href,
    state: 'checking',
    problems: [],
    checkedAt: Date.now(),
    relays: [],
  };
  let identity: CheckResult['identity'];
  // The page's loads for the manifest gathering, from the one reading of the page below (against the
  // event's `url` and the site root: the gathering reads them again only if its manifest names another site).
  let knownLoads = (_loads: KnownLoads | undefined) => {};
  const known = new Promise<KnownLoads | undefined>((resolve) => {
    knownLoads = resolve;
  });
  const finish = (problems: Problem[]): CheckResult => {
    knownLoads(undefined);
    record.problems = problems;
    record.state = decideState(problems);
    return { record, facts, ...(identity ? { identity } : {}) };
  };
  const block = readSignatureBlock(`<!doctype html><html>${head}</html>`);
  if (block?.eventId === undefined)
    return finish([createProblem('block.no_event', 'the signature block names no event')]);
  // The page is fetched again while its event is looked up: the two do not depend on each other.
  const fetched = fetchBounded(page.href, MAX_PAGE_BYTES);
  const servedBytes = fetched.then((answer) => answer.bytes);
  // A check that ends before the page is read (no event, a bad one) leaves these unawaited.
  for (const pending of [fetched, servedBytes]) pending.catch(() => undefined);
  // The manifest gathering starts now too: the manifest address this site's last page named is looked up
  // while the event is still being read (the event's own address decides below).
  const siteRoot = new URL('..', eventFileUrl(block.eventId, block.verifyUrl, page));
  const gather = facts.recorder.gatherManifest(
    browserManifestIo({
      relays: settings.relays,
      pageHost: page.hostname,
      siteRoot,
      credentials: 'omit',
      pool: relayPool,
    }),
  );
  const guessed = lastAddress.get(siteRoot.href);
  if (guessed !== undefined) gather.lookAhead(guessed);
  const found = await findEvent(block.eventId, block, page, settings.relays, facts.recorder, relayPool);
  record.relays.push(...found.relays);
  facts.event = found.evidence;
  const alone = judgePage({ selector: SELECTOR, event: found.evidence });
  if (!alone.event || alone.spec === undefined) return finish(alone.problems);
  const { event, spec } = alone;
  record.event = {
    id: event.id,
    created_at: event.created_at,
    source: 'from' in found.evidence ? (found.evidence.from ?? '') : '',
    ...(readTag(event, 'url') !== undefined ? { url: readTag(event, 'url') } : {}),
    ...(readTag(event, 'alt') !== undefined ? { title: readTag(event, 'alt') } : {}),
  };
  const address = readTag(event, 'a');
  if (address !== undefined) rememberAddress(siteRoot.href, address);
  // Everything that needs only the event starts now, while the page is still being fetched: the site
  // manifest (it needs the page's bytes only at its end), the pin's NIP-05 and the signer's name.
  const manifestFound = gather(event, found.hints, page.href, servedBytes, siteRoot.href, known);
  // A page that cannot be fetched ends the check before it is awaited.
  manifestFound.catch(() => undefined);
  const expectedFound = readExpected(settings, page.origin);
  const nip05 = readSignerNip05(
    event.pubkey,
    [...new Set([...found.hints, ...settings.relays])].slice(0, MAX_RELAY_HINTS),
    page.hostname,
    relayPool,
  ).catch(() => ({}) as { claimed?: string; confirmed?: string });
  let response: BoundedResponse;
  try {
    response = await fetched;
  } catch (error) {
    return finish([
      createProblem('page.unavailable', `could not load the page: ${(error as Error).message}`),
    ]);
  }
  facts.served = {
    url: response.url,
    status: response.status,
    headers: response.headers,
    bytes: response.bytes,
  };
  if (response.status < 200 || response.status >= 300)
    return finish([createProblem('page.unavailable', `could not load the page: HTTP ${response.status}`)]);
  const signedAt = readTag(event, 'url');
  const served = await readServedPage(response.bytes, {
    contentType: response.contentType,
    selector: SELECTOR,
    spec,
    ...(signedAt === undefined ? {} : { origin: { address: signedAt, siteUrl: siteRoot.href } }),
  });
  knownLoads(served.known);
  const [manifest, live, expected] = await Promise.all([
    manifestFound,
    served.content === undefined
      ? Promise.resolve(undefined)
      : askLive({
          type: 'siegel:live',
          selector: SELECTOR,
          served: served.content,
          ...authorStyles(served.html, response.url),
        }),
    expectedFound,
  ]);
  if (expected && 'pubkey' in expected) facts.expected = expected;
  const judgement = judgePage({
    selector: SELECTOR,
    readPage: () => served.reading,
    block: served.block,
    event: found.evidence,
    address: response.url,
    ...(expected && 'pubkey' in expected ? { expected } : {}),
    ...(manifest ? { manifest } : {}),
  });
  const problems = [...judgement.problems];
  if (expected && 'unresolved' in expected) problems.push(expected.unresolved);
  if (live) {
    record.live = live;
    problems.push(...live.problems);
  }
  record.coverage = describeCoverage(SELECTOR);
  if (served.content !== undefined) record.content = served.content;
  const trust =
    judgement.verdict === 'valid'
      ? await judgeTrust(settings, page.origin, event.pubkey, expected !== undefined)
      : {
          trust: (settings.known[page.origin] ?? []).some((key) => key.pubkey === event.pubkey)
            ? ('accepted' as const)
            : ('new' as const),
        };
  if ('problem' in trust && trust.problem) problems.push(trust.problem);
  // The signer's NIP-05 name comes later: the state does not wait on a profile (background.ts adds it).
  identity = nip05.then(({ claimed, confirmed }) =>
    claimed === undefined ? undefined : { name: claimed, confirmed: confirmed === claimed },
  );
  record.signer = {
    pubkey: event.pubkey,
    npub: npubEncode(event.pubkey),
    trust: trust.trust,
    ...('since' in trust && trust.since !== undefined ? { since: trust.since } : {}),
  };
  const errors = problems.filter((problem) => problem.severity === 'error');
  return finish([...errors, ...problems.filter((problem) => problem.severity !== 'error')]);
}
