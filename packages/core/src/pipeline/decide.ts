import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { fingerprintFile, type SignCacheEntry } from '../cache/sign-cache.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { type ParsedPage, readPageForCheck } from '../page/analyze.js';
import { createPageEvent, describesPage, pageUrl } from '../page/page-event.js';
import { resolveBaseUrl } from '../page/page-facts.js';
import { applySignatureBlock, renderSignatureBlock } from '../page/signature-block.js';
import { type BlockPlace, spliceBlockBytes } from '../page/splice.js';
import { checkPage } from '../verify/page-check.js';
import { type Problem, type ProblemCode, refusalProblemCode } from '../verify/rules.js';
import type { RunCache } from './run-cache.js';
import type { PageOutcome } from './summary.js';

/** What became of one page: what to write (`undefined`: leave the file as it is) and its event. */
export interface PageResult {
  outcome: PageOutcome;
  /** The signed page's bytes. */
  output: Buffer | undefined;
  event?: NostrEvent;
  url?: string;
  /** What the page loads (page/page-loads.ts), for the site manifest: known for a signed or unchanged page. */
  loads?: string[];
  error?: string;
  /** The rule book's code of a refusal (`page.not_shown`…): the code a verifier gives the same page. */
  code?: ProblemCode;
}

/** A page that needs a new signature: everything its batch needs to sign, splice and cache it. */
export interface SignRequest {
  path: string;
  /** The page's own copy of its raw bytes (compact, off the JS heap). */
  input: Buffer;
  fingerprint: string;
  place: BlockPlace;
  bytePlace: BlockPlace;
  hash: string;
  url: string;
  template: EventTemplate;
  /** What the page loads (ParsedPage.loads), kept in its cache entry for the site manifest. */
  loads: string[];
  /** The parse proved the block's place safe (ParsedPage.splicesSafely); otherwise the signed page is read back. */
  splicesSafely: boolean;
}

/** A page that must be parsed before it is decided: its own bytes and what the cache knows of it. */
export interface ToParse {
  path: string;
  input: Buffer;
  fingerprint: string;
  entry: SignCacheEntry | undefined;
}

/** What the decisions of one run need: its options and its cache. */
export interface DecideContext {
  options: ResolvedSignSiteOptions;
  cache: RunCache;
  /** The run has a signer and signs (no dry run): a changed page becomes a {@link SignRequest}. */
  signs: boolean;
  /** The site manifest's address every page event names (`a` tag); `undefined` when the key is unknown. */
  address: string | undefined;
  /** Test-only hooks (see `SIGN_SITE_SEAMS` in sign-site.ts). */
  seams?: SignRunSeams;
  /** How the written blocks were checked: proven by the parse, or read back (see {@link readBack}). */
  blockChecks: { proven: number; readBack: number };
}

/**
 * Hooks into a signing run that no option or environment variable reaches: tests put a block where it does
 * not belong, to show that such a page is read back, not written and reported.
 */
export interface SignRunSeams {
  /** Change what the parse found (the block's place): a page changed here is always read back. */
  parsed?(page: ParsedPage, path: string): ParsedPage;
}

/**
 * Decide a page by its bytes alone, before any parse: exactly what Siegel wrote last time (nothing to do),
 * or the same raw build output as last time (the cached block goes back at the recorded byte offset).
 * Otherwise the page must be parsed: `input` is then copied, unless `owned` says it is the page's own
 * buffer — it may be a view into a reused read buffer, valid only during this call.
 */
export function decideByBytes(
  context: DecideContext,
  path: string,
  input: Buffer,
  owned: boolean,
): PageResult | ToParse {
  const fingerprint = fingerprintFile(input);
  const entry = context.cache.get(path);
  const url = pageUrl(context.options.site, path);
  // An entry is taken unparsed only when it knows the page's loads and its event names this run's manifest
  // (pages signed before the site manifest have no `a` tag: they are parsed and signed again, once).
  const loads = entry?.loads;
  const current = loads !== undefined && tagOf(entry?.event, 'a') === context.address;
  if (entry && current && entry.signedFingerprint === fingerprint)
    return { outcome: 'unchanged', output: undefined, event: entry.event, url, loads };
  if (entry && current && entry.fingerprint === fingerprint && entry.bytePlace) {
    const output = applyBlock(context.options, input, entry, entry.bytePlace, entry.event);
    // Same bytes and same event give the same output as last time: its fingerprint is known already.
    if (entry.signedFingerprint === undefined)
      context.cache.update(path, { ...entry, signedFingerprint: fingerprintFile(output) });
    return { outcome: 'unchanged', output, event: entry.event, url, loads };
  }
  return { path, input: owned ? input : Buffer.from(input), fingerprint, entry };
}

/**
 * Decide a parsed page: no matching element (skipped), refused, the cached event's block (same hash), or
 * a new event to sign (a dry run only says it would sign).
 */
export function decideByHash(
  context: DecideContext,
  page: ToParse,
  found: ParsedPage,
): PageResult | SignRequest {
  const { options, cache } = context;
  // A page the seam changed is never taken as proven, whatever it claims.
  const seamed = context.seams?.parsed?.(found, page.path) ?? found;
  const parsed = seamed === found ? found : { ...seamed, splicesSafely: false };
  const { path, input, fingerprint, entry } = page;
  if (parsed.hash === undefined)
    return { outcome: 'skipped', output: undefined, error: `no element matches \`${options.selector}\`` };
  if (parsed.refusal)
    return {
      outcome: 'refused',
      output: undefined,
      error: parsed.refusal.message,
      code: refusalProblemCode(parsed.refusal),
    };
  const { place, bytePlace, hash } = parsed;
  const url = pageUrl(options.site, path);
  // What the event says of the page besides its hash: the title and the base URL its `<base href>` sets.
  const base = resolveBaseUrl(parsed.baseHref, url);
  const facts = {
    ...(parsed.title ? { title: parsed.title } : {}),
    ...(base ? { base } : {}),
    ...(context.address ? { address: context.address } : {}),
  };
  const { loads } = parsed;
  if (entry && entry.hash === hash && describesPage(entry.event, facts)) {
    const output = applyBlock(options, input, place, bytePlace, entry.event);
    const problem = checkBlock(context, parsed.splicesSafely, output, entry.event, url);
    if (problem) return notWritten(problem);
    const signedFingerprint = fingerprintFile(output);
    // A file that already is our signed output keeps the entry's raw-build fingerprint and offsets.
    cache.update(
      path,
      signedFingerprint === fingerprint
        ? { ...entry, signedFingerprint, loads }
        : { hash, event: entry.event, fingerprint, ...place, bytePlace, signedFingerprint, loads },
    );
    return {
      outcome: 'unchanged',
      output: signedFingerprint === fingerprint ? undefined : output,
      event: entry.event,
      url,
      loads,
    };
  }
  if (!context.signs) return { outcome: 'would-sign', output: undefined, url };
  const template = createPageEvent({
    hash,
    url,
    fallbacks: options.mirrors.map((mirror) => pageUrl(mirror, path)),
    ...facts,
    ...(parsed.description ? { description: parsed.description } : {}),
  });
  return {
    path,
    input,
    fingerprint,
    place,
    bytePlace,
    hash,
    url,
    template,
    loads,
    splicesSafely: parsed.splicesSafely,
  };
}

/**
 * The rule book's first error for `output`, the page signed with `event` at `url`, read back as every
 * verifier reads it (one more full parse); `undefined` when it verifies. For the pages whose block's place
 * the parse could not prove safe (ParsedPage.splicesSafely): no run writes a page that would not verify.
 */
function readBack(
  options: ResolvedSignSiteOptions,
  output: Buffer,
  event: NostrEvent,
  url: string,
): Problem | undefined {
  const { selector } = options;
  const reading = readPageForCheck(output, selector);
  const { problems } = checkPage(
    { name: url, bytes: () => output, reading, address: url },
    reading.signatureBlock,
    { event: { found: event } },
    { selector, expected: { pubkey: event.pubkey } },
  );
  return problems.find((problem) => problem.severity === 'error');
}

/**
 * Check a page's signed bytes before they are written: proven by the parse (`splicesSafely`), or read back.
 * Counts each path in `context.blockChecks`; returns the problem that keeps the page from being written.
 */
export function checkBlock(
  context: DecideContext,
  splicesSafely: boolean,
  output: Buffer,
  event: NostrEvent,
  url: string,
): Problem | undefined {
  if (splicesSafely) {
    context.blockChecks.proven++;
    return undefined;
  }
  context.blockChecks.readBack++;
  return readBack(context.options, output, event, url);
}

/** The result of a page whose signed bytes would not verify: nothing written, the verifiers' code. */
export function notWritten(problem: Problem): PageResult {
  return {
    outcome: 'failed',
    output: undefined,
    error: `not written: the signed page would not verify (${problem.code}: ${problem.message})`,
    code: problem.code,
  };
}

/** True for a decision that still needs a signature. */
export function isSignRequest(decision: PageResult | SignRequest): decision is SignRequest {
  return 'template' in decision;
}

/** The page with the block for `event`, spliced by byte offsets when they are known. */
export function applyBlock(
  options: ResolvedSignSiteOptions,
  input: Buffer,
  place: BlockPlace,
  bytePlace: BlockPlace,
  event: NostrEvent,
): Buffer {
  const block = renderSignatureBlock(event, {
    verifyUrl: `${options.site}/verify/${event.id}`,
    relays: options.relays,
    selector: options.selector,
    mark: options.mark,
  });
  return (
    spliceBlockBytes(input, bytePlace, block) ??
    Buffer.from(applySignatureBlock(input.toString('utf8'), place, block), 'utf8')
  );
}

/** The cache entry of a page signed with `event`, whose signed bytes are `output`. */
export function signedEntry(request: SignRequest, event: NostrEvent, output: Buffer): SignCacheEntry {
  return {
    hash: request.hash,
    event,
    fingerprint: request.fingerprint,
    ...request.place,
    bytePlace: request.bytePlace,
    signedFingerprint: fingerprintFile(output),
    loads: request.loads,
  };
}

/** The first value of tag `name` of `event`. */
function tagOf(event: { tags: string[][] } | undefined, name: string): string | undefined {
  return event?.tags.find((tag) => tag[0] === name)?.[1];
}
