// The one rule book: whether a page is what its signature says, decided from what a verifier found —
// the page as read under a spec, the signature block it carries, the event, where the page was found and
// whom the reader expects. `siegel verify` (verify-site.ts), the browser verify script (script/main.ts) and
// every later verifier gather those facts with their own I/O and call `judgePage`; none decides on its own.
// Pure: no Node built-ins and no I/O, so it runs in Node and in the browser bundle alike (`@siegel/core/rules`).
// Integrity (hash, event id, signature) and trust (who signed, for which address) are separate problems,
// each with a stable code (PROBLEM_CODES) documented in docs/verification.md.
//
// The vocabulary (verdicts, problem codes) is in problem-codes.ts, the address comparison in
// page-address.ts, the event checks pages and files share in event-checks.ts, and the file rules
// (`judgeFileEvent`) in file-rules.ts; this file re-exports them, so `@siegel/core/rules` stays the one entry.
import type { NostrEvent } from 'nostr-tools/core';
import type { Refusal } from '../page/coverage.js';
import { collapseWhitespace, type PageFacts, resolveBaseUrl } from '../page/page-facts.js';
import { type PageSpec, readEventSpec } from '../page/parse.js';
import type { SignatureBlockInfo } from '../page/signature-block-read.js';
import {
  checkEvent,
  type EventChecks,
  type EventEvidence,
  type EventFamily,
  type Judgement,
  PURE_CHECKS,
  readTag,
} from './event-checks.js';
import { judgeManifest, type ManifestEvidence } from './manifest-rules.js';
import {
  compareReferrer,
  isGatewayAddress,
  isLocalPreview,
  isSameAddress,
  rebaseOrigin,
  signedAddresses,
} from './page-address.js';
import {
  createProblem,
  decideVerdict,
  type Problem,
  type ProblemCode,
  refusalProblemCode,
} from './problem-codes.js';

export type { EventChecks, EventEvidence, Judgement } from './event-checks.js';
export { type FileJudgeInput, judgeFileEvent } from './file-rules.js';
export type { AssetFinding, ManifestEvidence } from './manifest-rules.js';
export { isSameAddress, normalizeAddress } from './page-address.js';
export {
  createProblem,
  decideVerdict,
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
  refusalProblemCode,
  type Severity,
  type Verdict,
} from './problem-codes.js';

/**
 * The page as read under one spec: its selected element's hash and why it cannot be verified, if so; and
 * its title and `<base href>` (page/page-facts.ts), which the event's `alt` and `base` tags are compared with.
 */
export interface PageReading extends PageFacts {
  /** SHA-256 hex of the element's `innerHTML`; `undefined` when no element matches. */
  hash: string | undefined;
  /** Why the element cannot carry a signature (several matches, not shown, ignored markup); `undefined` if it can. */
  refusal: Refusal | undefined;
}

/** Everything {@link judgePage} decides from. */
export interface JudgeInput {
  /** The selector the hash covers (for messages). Default `main`. */
  selector?: string;
  /** The page's element read under `spec` (called with the event's spec); absent when only the event is judged. */
  readPage?: (spec: PageSpec) => PageReading;
  /** The signature block the page carries (`undefined`: none). Absent when the page was not read. */
  block?: SignatureBlockInfo | undefined;
  /** The event (absent when the block names none). */
  event?: EventEvidence;
  /** The absolute URL the page was found at; `undefined` when unknown (then the warning `address.unchecked`). */
  address?: string | undefined;
  /** The signer the reader expects, hex pubkey; `nip05` names where it came from (for the message). */
  expected?: { pubkey?: string; nip05?: string };
  /** Id and signature checks (default: nostr-tools' pure JS). */
  checks?: EventChecks;
  /**
   * The page as a plain client read it (`siegel verify <url> --check-cloaking`), called with the event's
   * spec; `readPage` is then a browser's navigation's reading. A different hash is `page.cloaked`.
   */
  readPlainPage?: (spec: PageSpec) => PageReading;
  /**
   * Where the reader came from, for a verifier a reader opens from another page (a verify page:
   * `document.referrer`, `''` when there is none). Absent (the CLI): not compared. See `Judgement.referrer`.
   */
  referrer?: string;
  /** The page's site manifest as the verifier found it (manifest-rules.ts); absent: not judged. */
  manifest?: ManifestEvidence;
}

/** The shared event checks (event-checks.ts) under the page event's codes. */
const PAGE_EVENT: EventFamily = {
  noun: 'page',
  malformed: 'event.malformed',
  id: 'event.id',
  signature: 'event.signature',
  kind: 'event.kind',
};

/**
 * What a valid signature covers, in the words every verifier shows beside "valid" (the CLI's verbose
 * output, the verify page) and the docs repeat verbatim (docs/verification.md, SPEC.md): the markup of the
 * selected element as a browser reads it and the page's address — not what stylesheets or scripts do to it,
 * which the served bytes cannot tell.
 */
export function describeCoverage(selector = 'main'): string {
  return `A valid signature covers the markup of \`${selector}\` as a browser reads it and the page’s address; not how stylesheets make it look, nor what scripts change after the page loads.`;
}

/**
 * Decide one page's verdict from what a verifier found. Every check is here once: the block against the
 * page, the event's shape, id, signature, kind and spec, the event against the block (id, pubkey) and the
 * expected signer, the page's hash (read under the event's spec) against the event's `x` tag, the page's
 * coverage (one element, shown, nothing ignored inside), and the event's `url` — or one of its NIP-94
 * `fallback` tags, the page's address at a mirror named at signing — against the address the page was
 * found at (the same path on a loopback host is a local preview, `address.preview`); what the reader's
 * browser takes from the page besides the element — its title against the event's `alt` tag, its base URL
 * against the event's `base` tag (or, without one, the page's own address); and, when given, a plain
 * client's reading of the page against a browser's (`page.cloaked`) and where the reader came from against
 * the addresses checked (`referrer.other_page`).
 *
 * @example
 * ```ts
 * const { verdict, problems } = judgePage({
 *   readPage: (spec) => analyzePage(html, { selector: 'main', spec }),
 *   block: analyzePage(html).signatureBlock,
 *   event: { found: JSON.parse(eventJson) },
 *   address: 'https://example.com/blog/x/',
 * });
 * ```
 */
export function judgePage(input: JudgeInput): Judgement {
  const selector = input.selector ?? 'main';
  const checks = input.checks ?? PURE_CHECKS;
  const problems: Problem[] = [];
  const add = (code: ProblemCode, message: string) => problems.push(createProblem(code, message));
  const { block } = input;
  const judgement = (): Judgement => ({
    ...result,
    verdict: decideVerdict(problems),
    problems: [
      ...problems.filter((problem) => problem.severity === 'error'),
      ...problems.filter((problem) => problem.severity === 'warning'),
    ],
  });
  const result: Omit<Judgement, 'verdict' | 'problems'> = {};
  const pageRead = input.readPage !== undefined;
  if (pageRead && block === undefined) add('block.missing', 'the page carries no signature block');
  else if (pageRead && block?.eventId === undefined)
    add('block.no_event', 'the signature block names no event');

  // The event: its shape, id and signature, kind, spec.
  let event: NostrEvent | undefined;
  let spec: PageSpec | undefined;
  const evidence = input.event;
  if (evidence && 'missing' in evidence) add('event.not_found', evidence.missing);
  else if (evidence && 'malformed' in evidence) add('event.malformed', evidence.malformed);
  else if (evidence) {
    event = checkEvent(evidence.found, evidence.from, PAGE_EVENT, checks, add);
    if (event) {
      result.event = event;
      spec = readEventSpec(event);
      if (spec === undefined)
        add(
          'event.spec',
          `the event names a spec this verifier cannot check (\`${readTag(event, 'spec')}\`)`,
        );
      else result.spec = spec;
    }
  }

  // The event against the block and the expected signer.
  if (event && block) {
    if (block.eventId !== undefined && block.eventId !== event.id)
      add(
        'event.not_named',
        `\`${event.id}\` is not the signature this page names (it names \`${block.eventId}\`${block.pubkey === undefined ? '' : ` by \`${block.pubkey}\``})`,
      );
    if (block.pubkey !== undefined && block.pubkey !== event.pubkey)
      add(
        'signer.unexpected',
        `signed by \`${event.pubkey}\`, but the page’s block names \`${block.pubkey}\``,
      );
    if (spec !== undefined && block.spec !== undefined && block.spec !== spec)
      add('block.spec', `the block says \`${block.spec}\` but the event was signed under \`${spec}\``);
  }
  const expected = input.expected?.pubkey;
  if (event && expected !== undefined && event.pubkey !== expected) {
    const by = input.expected?.nip05 ? ` (the key of \`${input.expected.nip05}\` by NIP-05)` : '';
    add('signer.unexpected', `signed by \`${event.pubkey}\`, expected \`${expected}\`${by}`);
  }

  // The page, read by the rules its event was signed under (the signed `spec` tag, never the block's word).
  let reading: PageReading | undefined;
  if (input.readPage && (spec !== undefined || event === undefined)) {
    const readSpec = spec ?? readEventSpec({ tags: [['spec', block?.spec ?? '']] }) ?? 'siegel-page/2';
    reading = input.readPage(readSpec);
    if (reading.hash !== undefined) result.hash = reading.hash;
    if (reading.hash === undefined) add('page.no_element', `no element matches \`${selector}\``);
    else if (reading.refusal)
      add(refusalProblemCode(reading.refusal), `not verifiable: ${reading.refusal.message}`);
    const x = event ? readTag(event, 'x') : undefined;
    if (reading.hash !== undefined && x !== undefined && x !== reading.hash)
      add(
        'hash.mismatch',
        `the page’s ${selector} changed since it was signed: it hashes to \`${reading.hash}\`, the signature covers \`${x}\``,
      );
    if (reading.hash !== undefined && block?.hash !== undefined && block.hash !== reading.hash)
      add(
        'block.hash',
        `the block states the hash \`${block.hash}\`; the page’s ${selector} hashes to \`${reading.hash}\``,
      );
    // Cloaking: the page a browser's navigation gets against the one a plain client gets — the element and
    // what the rule book judges besides it (the title, the base URL).
    const plain = input.readPlainPage?.(readSpec);
    if (plain && plain.hash !== reading.hash) {
      const named = (hash: string | undefined) => (hash === undefined ? `no \`${selector}\`` : `\`${hash}\``);
      add(
        'page.cloaked',
        `the site serves a browser another ${selector} than a plain client: a browser’s navigation got ${named(reading.hash)}, a plain client ${named(plain.hash)}`,
      );
    } else if (plain && (plain.title !== reading.title || plain.baseHref !== reading.baseHref)) {
      const what = plain.title !== reading.title ? 'title' : '`<base href>`';
      const shown = (value: string | undefined) => (value === undefined ? 'none' : `\`${value}\``);
      const [browser, client] =
        what === 'title' ? [reading.title, plain.title] : [reading.baseHref, plain.baseHref];
      add(
        'page.cloaked',
        `the site serves a browser another ${what} than a plain client: a browser’s navigation got ${shown(browser)}, a plain client ${shown(client)}`,
      );
    }
  }

  // The address: the event's `url`, or one of its `fallback` tags (the page's address at a mirror the
  // signer named), against where the page was found.
  if (event && input.readPage) {
    const url = readTag(event, 'url');
    const fallbacks = event.tags.filter((tag) => tag[0] === 'fallback' && typeof tag[1] === 'string');
    const signedFor = signedAddresses(event);
    const { address } = input;
    if (address === undefined)
      add('address.unchecked', 'the page’s address is not known here, so the event’s `url` was not compared');
    else if (
      !signedFor.some((candidate) => isSameAddress(candidate, address)) &&
      !isGatewayAddress(address, event, input.manifest?.newest)
    ) {
      const mirrors =
        fallbacks.length > 0
          ? ` (or its ${fallbacks.length} mirror address${fallbacks.length === 1 ? '' : 'es'})`
          : '';
      // On this machine at the signed path: the owner's preview (`astro preview`), not a copy shown to others.
      const previewed = signedFor.find((candidate) => isLocalPreview(address, candidate));
      if (previewed !== undefined)
        add(
          'address.preview',
          `this is a local preview: found at \`${address}\` on this machine, signed for \`${previewed}\` (the same path)`,
        );
      else
        add(
          'event.url',
          `signed for \`${url ?? '(no url)'}\`${mirrors}, but the page was found at \`${address}\``,
        );
    }
  }
  if (event && reading)
    for (const [code, message] of judgeFacts(event, reading, input.address)) add(code, message);
  if (event && input.manifest)
    for (const [code, message] of judgeManifest(event, input.manifest, reading?.loads, problems))
      add(code, message);

  // Where the reader came from: a genuine verify page opened from a forged page is about another page.
  if (input.referrer !== undefined) {
    const checked = [input.address, ...(event ? signedAddresses(event) : [])].filter(
      (candidate): candidate is string => candidate !== undefined,
    );
    result.referrer = checked.length === 0 ? 'none' : compareReferrer(input.referrer, checked);
    if (result.referrer === 'other')
      add(
        'referrer.other_page',
        `you came from \`${input.referrer}\`, which is not the page this check is about (\`${checked[0]}\`): this verdict says nothing about the page you came from`,
      );
  }
  return judgement();
}

/**
 * The page's title and base URL against the event. The title (`document.title`) must be the `alt` tag (none:
 * signed without a title). The base URL — set by the first `<base href>`, resolved against the page's address
 * (the event's `url` where the address is not known) — must be the `base` tag; without one, the page's own
 * address. At a mirror (a `fallback` address), the `base` tag also holds with the mirror's origin in place of
 * the `url`'s, so a `<base href="/">` reads the same at every mirror.
 */
/** A title as a message quotes it: its first 200 characters (an event's `alt` may be a megabyte). */
const shorten = (title: string): string => (title.length > 200 ? `${title.slice(0, 200)}…` : title);

function judgeFacts(
  event: NostrEvent,
  reading: PageReading,
  found: string | undefined,
): Array<[ProblemCode, string]> {
  const problems: Array<[ProblemCode, string]> = [];
  const signedTitle = collapseWhitespace(readTag(event, 'alt') ?? '');
  if (signedTitle !== reading.title) {
    const now =
      reading.title === undefined
        ? 'the page has no title'
        : `the page’s title is “${shorten(reading.title)}”`;
    const then =
      signedTitle === undefined ? 'it was signed without one' : `it was signed as “${shorten(signedTitle)}”`;
    problems.push(['page.title', `${now}, but ${then} (the tab, bookmarks and link previews show it)`]);
  }
  const url = readTag(event, 'url');
  const address = found ?? url;
  if (address === undefined) return problems;
  const base = resolveBaseUrl(reading.baseHref, address) ?? address;
  const signedBase = readTag(event, 'base');
  const expected = signedBase === undefined ? [address] : [signedBase];
  if (signedBase !== undefined && url !== undefined && found !== undefined && !isSameAddress(url, found)) {
    const atMirror = rebaseOrigin(signedBase, url, found);
    if (atMirror !== undefined) expected.push(atMirror);
  }
  if (!expected.some((candidate) => isSameAddress(candidate, base))) {
    const why =
      base === address
        ? `now resolve against the page’s own address \`${address}\``
        : `now go to \`${base}\` (its \`<base href="${reading.baseHref?.slice(0, 200)}">\`)`;
    problems.push([
      'page.base',
      `the page’s relative links and forms ${why}, but it was signed with them resolving against \`${expected[0]}\``,
    ]);
  }
  return problems;
}
