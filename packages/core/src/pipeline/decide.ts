import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { fingerprintFile, type SignCacheEntry } from '../cache/sign-cache.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import type { ParsedPage } from '../page/analyze.js';
import { createPageEvent, pageUrl } from '../page/page-event.js';
import { applySignatureBlock, renderSignatureBlock } from '../page/signature-block.js';
import { type BlockPlace, spliceBlockBytes } from '../page/splice.js';
import { type ProblemCode, refusalProblemCode } from '../verify/rules.js';
import type { RunCache } from './run-cache.js';
import type { PageOutcome } from './summary.js';

/** What became of one page: what to write (`undefined`: leave the file as it is) and its event. */
export interface PageResult {
  outcome: PageOutcome;
  /** The signed page's bytes. */
  output: Buffer | undefined;
  event?: NostrEvent;
  url?: string;
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
  if (entry && entry.signedFingerprint === fingerprint)
    return { outcome: 'unchanged', output: undefined, event: entry.event, url };
  if (entry && entry.fingerprint === fingerprint && entry.bytePlace) {
    const output = applyBlock(context.options, input, entry, entry.bytePlace, entry.event);
    // Same bytes and same event give the same output as last time: its fingerprint is known already.
    if (entry.signedFingerprint === undefined)
      context.cache.update(path, { ...entry, signedFingerprint: fingerprintFile(output) });
    return { outcome: 'unchanged', output, event: entry.event, url };
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
  parsed: ParsedPage,
): PageResult | SignRequest {
  const { options, cache } = context;
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
  if (entry && entry.hash === hash) {
    const output = applyBlock(options, input, place, bytePlace, entry.event);
    const signedFingerprint = fingerprintFile(output);
    // A file that already is our signed output keeps the entry's raw-build fingerprint and offsets.
    cache.update(
      path,
      signedFingerprint === fingerprint
        ? { ...entry, signedFingerprint }
        : { hash, event: entry.event, fingerprint, ...place, bytePlace, signedFingerprint },
    );
    return {
      outcome: 'unchanged',
      output: signedFingerprint === fingerprint ? undefined : output,
      event: entry.event,
      url,
    };
  }
  if (!context.signs) return { outcome: 'would-sign', output: undefined, url };
  const template = createPageEvent({
    hash,
    url,
    fallbacks: options.mirrors.map((mirror) => pageUrl(mirror, path)),
    ...(parsed.title ? { title: parsed.title } : {}),
    ...(parsed.description ? { description: parsed.description } : {}),
  });
  return { path, input, fingerprint, place, bytePlace, hash, url, template };
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
  };
}
