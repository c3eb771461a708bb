// One page checked at its address by a verifier that is not the site (the file server's verify-by-URL):
// `verifySite` on that one URL under a connection policy (net/connect-policy.ts), plus what a reader is
// shown beside the verdict — the signed element as served and as text, when and by whom it was signed,
// and the signer's NIP-05 name with its state (the newest kind-0 profile on the relays, confirmed by the
// name's domain), every connection under the same policy.
import type { NostrEvent } from 'nostr-tools/core';
import { npubEncode } from 'nostr-tools/nip19';
import { parseFragment } from 'parse5';
import { SiegelError } from '../errors.js';
import type { ConnectPolicy } from '../net/connect-policy.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import { queryRelay } from '../nostr/relay-query.js';
import { MAX_RELAY_HINTS, parseRelays, pickRelayHints } from '../nostr/relays.js';
import type { PageSpec } from '../page/html-parser.js';
import { CURRENT_SPEC } from '../page/parse.js';
import { resolveNip05 } from './nip05.js';
import { createProblem, decideVerdict } from './problem-codes.js';
import { soundEvents } from './relay-lookup.js';
import { describeCoverage } from './rules.js';
import { readServedPage } from './script/served-page.js';
import type { PageVerification } from './verify-report.js';
import { type SeenPage, verifySite } from './verify-site.js';

/** Options of {@link checkPageAtUrl}: the policy, and `siegel verify`'s bounds for a URL. */
export interface CheckPageAtUrlOptions {
  /** Which addresses every connection of the check may reach (`PUBLIC_ADDRESSES_ONLY` for a server). */
  policy: ConnectPolicy;
  /** The verifier's own relays, asked besides the page's hints (`wss://`; `ws://` on loopback). */
  relays?: string[];
  relayTimeoutMs?: number;
  requestTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxPageBytes?: number;
  maxRedirects?: number;
  /** Ask for the page again as a plain client and compare (`page.cloaked`); default `true`. */
  checkCloaking?: boolean;
}

/** The signer's NIP-05 name as its profile states it, and whether the name's domain confirms it. */
export interface SignerNip05 {
  name: string;
  /** `confirmed`: the domain names this key; `unconfirmed`: another key or none; `unreachable`: not read. */
  state: 'confirmed' | 'unconfirmed' | 'unreachable';
  /** Why it is not confirmed. */
  reason?: string;
}

/** One page checked at its address, with what a reader is shown beside the verdict. */
export interface PageAtUrl {
  /** Exactly one page of `siegel verify --json`. */
  page: PageVerification;
  /** When the check ended, in ms since the epoch. */
  checkedAt: number;
  /** What "valid" covers (`describeCoverage`). */
  coverage: string;
  /** The event the page's block names, as found (its signature checked). */
  event?: { id: string; pubkey: string; npub: string; created_at: number; url?: string; title?: string };
  /** The signed element as served (what was hashed), and its text. */
  content?: { html: string; text: string };
  /** Who signed, with the NIP-05 name their profile states (absent: the profile names none, or none found). */
  signer?: { npub: string; nip05?: SignerNip05 };
  /** An answer must not be reused past this time (ms): the page's or its manifest's NIP-40 `expiration`. */
  freshUntil?: number;
}

const SELECTOR = 'main';

/**
 * Check the page at `url` as `siegel verify <url>` would (fetched as a browser's navigation, compared with
 * a plain client, event from the site and relays, the site manifest where it exists), every connection
 * under `options.policy`.
 *
 * @example
 * ```ts
 * const { page, signer } = await checkPageAtUrl('https://example.com/post/', { policy: PUBLIC_ADDRESSES_ONLY });
 * ```
 * @throws {SiegelError} `invalid_options` when `url` is not an http(s) URL or a relay is not valid;
 * `io_error` when the page cannot be read: refused by the policy, unreachable, too large, too slow.
 */
export async function checkPageAtUrl(url: string, options: CheckPageAtUrlOptions): Promise<PageAtUrl> {
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    throw new SiegelError('invalid_options', `\`${url}\` is not a URL`);
  }
  if (address.protocol !== 'http:' && address.protocol !== 'https:')
    throw new SiegelError('invalid_options', `\`${url}\` is not an http(s) URL`);
  address.hash = '';
  // The bounds (time, bytes, redirects) go to the check as given: `verifySite` defaults the rest.
  const { policy, relays: ownRelays, checkCloaking, ...bounds } = options;
  const relays = parseRelays(ownRelays ?? [], 'relays');
  let seen: SeenPage | undefined;
  const report = await verifySite(
    address.href,
    {
      maxPages: 1,
      policy,
      relays,
      checkCloaking: checkCloaking ?? true,
      ...bounds,
    },
    (page) => {
      seen = page;
    },
  );
  const page = report.pages[0] ?? notSigned(address.href);
  const result: PageAtUrl = { page, checkedAt: Date.now(), coverage: describeCoverage(SELECTOR) };
  if (!seen) return result;
  const served = await readServedPage(seen.page.bytes(), {
    contentType: seen.page.contentType ?? null,
    selector: SELECTOR,
    spec: (page.spec as PageSpec | undefined) ?? CURRENT_SPEC,
  });
  if (served.content !== undefined) result.content = { html: served.content, text: textOf(served.content) };
  const found = seen.event && 'found' in seen.event ? (seen.event.found as NostrEvent) : undefined;
  // Shown only for an event whose id and signature hold: anything else is the verdict's to explain.
  const crypto = await loadSigningEngine();
  const sound = soundEvents(crypto);
  if (found && sound(found)) {
    const tag = (name: string) => found.tags.find((t) => t[0] === name)?.[1];
    const npub = npubEncode(found.pubkey);
    result.event = {
      id: found.id,
      pubkey: found.pubkey,
      npub,
      created_at: found.created_at,
      ...(tag('url') !== undefined ? { url: tag('url') } : {}),
      ...(tag('alt') !== undefined ? { title: tag('alt') } : {}),
    };
    const hints = pickRelayHints(seen.page.reading.signatureBlock?.relays ?? []);
    const nip05 = await readSignerNip05(found.pubkey, [...new Set([...hints, ...relays])], sound, options);
    result.signer = { npub, ...(nip05 ? { nip05 } : {}) };
    // NIP-40: the event stops being good at its `expiration`. (A site manifest has no such tag: a newer one
    // may come at any time, which is why a server's reuse of an answer is brief.)
    const expires = Number(tag('expiration'));
    if (Number.isFinite(expires)) result.freshUntil = expires * 1000;
  }
  return result;
}

/** A page with neither a signature block nor the signed element: `siegel verify` skips it; here it is the answer. */
function notSigned(url: string): PageVerification {
  const problems = [
    createProblem(
      'page.no_element',
      `\`${url}\` has no signature block and no \`<${SELECTOR}>\`: it is not a page Siegel signed`,
    ),
  ];
  return { page: url, verdict: decideVerdict(problems), problems, found: {}, expected: {} };
}

/** The text a reader reads in the signed element: its text nodes, without scripts', styles' and templates'. */
function textOf(html: string): string {
  const parts: string[] = [];
  const walk = (node: { nodeName: string; value?: string; childNodes?: unknown[]; content?: unknown }) => {
    if (node.nodeName === '#text') parts.push(node.value ?? '');
    if (/^(script|style|template|noscript)$/.test(node.nodeName)) return;
    for (const child of (node.childNodes ?? []) as Array<typeof node>) walk(child);
  };
  walk(parseFragment(html) as unknown as Parameters<typeof walk>[0]);
  return parts
    .join('')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/**
 * The NIP-05 name the newest kind-0 profile of `pubkey` on `relays` states, and whether its domain names
 * this key — the relays and the domain reached under the policy.
 */
async function readSignerNip05(
  pubkey: string,
  relays: string[],
  sound: (event: NostrEvent) => boolean,
  options: CheckPageAtUrlOptions,
): Promise<SignerNip05 | undefined> {
  const timeoutMs = options.relayTimeoutMs ?? 8000;
  const answers = await Promise.all(
    relays.slice(0, MAX_RELAY_HINTS * 2).map((relay) =>
      queryRelay(
        relay,
        { kinds: [0], authors: [pubkey], limit: 1 },
        {
          policy: options.policy,
          timeoutMs,
          accept: (event) => event.kind === 0 && event.pubkey === pubkey && sound(event),
        },
      ),
    ),
  );
  const newest = answers.flatMap((a) => a.events).sort((a, b) => b.created_at - a.created_at)[0];
  let name: unknown;
  try {
    name = newest ? (JSON.parse(newest.content) as { nip05?: unknown }).nip05 : undefined;
  } catch {}
  if (typeof name !== 'string' || name.trim() === '') return undefined;
  const claimed = name.trim().slice(0, 320);
  try {
    const key = await resolveNip05(claimed, {
      policy: options.policy,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    });
    return key === pubkey
      ? { name: claimed, state: 'confirmed' }
      : { name: claimed, state: 'unconfirmed', reason: `its domain names another key (${key})` };
  } catch (error) {
    const message = (error as Error).message;
    // A domain that answered but names no key for the name is an answer; anything else is an outage.
    const answered = /names no key|names `|is not JSON|not valid/.test(message);
    return { name: claimed, state: answered ? 'unconfirmed' : 'unreachable', reason: message };
  }
}
