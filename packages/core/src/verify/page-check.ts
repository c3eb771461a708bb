import { readPageForCheck } from '../page/analyze.js';
import type { PageSpec } from '../page/parse.js';
import type { SignatureBlockInfo } from '../page/signature-block-read.js';
import {
  createProblem,
  decideVerdict,
  type EventChecks,
  type EventEvidence,
  judgePage,
  type ManifestEvidence,
} from './rules.js';
import type { PageBytes, SourcePage } from './site-source.js';
import type { PageVerification } from './verify-report.js';

/** What one page is judged against: the same for every page of a check. */
export interface PageCheckContext {
  selector: string;
  /** The pinned signer (hex), and the NIP-05 identifier it came from. */
  expected: { pubkey?: string; nip05?: string };
  /** Id and signature checks; default: the rule book's (nostr-tools' pure JS). */
  checks?: EventChecks;
}

/** A page that could not be read (too large, refused, too slow): not verified, with why. */
export function unreadPage(page: Extract<SourcePage, { problem: string }>): PageVerification {
  const problems = [createProblem(page.code, page.problem)];
  return { page: page.name, verdict: decideVerdict(problems), problems, found: {}, expected: {} };
}

/**
 * The rule book's verdict on one read page and the event its block names (`event`: as loaded, missing or
 * malformed; absent when the block names none), with what was found against what was expected.
 */
export function checkPage(
  page: Extract<SourcePage, { reading: unknown }>,
  block: SignatureBlockInfo | undefined,
  loaded: { event?: EventEvidence; eventFrom?: string; manifest?: ManifestEvidence },
  context: PageCheckContext,
): PageVerification {
  const { selector, expected } = context;
  const first = page.reading;
  // The page read again only when its event was signed under another spec (rare: the current one is read
  // already). A page a browser would not decode as UTF-8 is not verifiable, whatever its element.
  const read = (from: PageBytes, spec: PageSpec) =>
    spec === from.reading.spec
      ? from.reading
      : readPageForCheck(from.bytes(), selector, { spec, contentType: from.contentType });
  const judged = (from: PageBytes) => (spec: PageSpec) => {
    const { hash, refusal, encoding, title, baseHref, loads } = read(from, spec);
    return { hash, refusal: encoding ?? refusal, title, baseHref, loads };
  };
  const judgement = judgePage({
    selector,
    readPage: judged(page),
    ...(page.plain ? { readPlainPage: judged(page.plain) } : {}),
    block,
    ...(loaded.event ? { event: loaded.event } : {}),
    address: page.address,
    expected,
    ...(context.checks ? { checks: context.checks } : {}),
    ...(loaded.manifest ? { manifest: loaded.manifest } : {}),
  });
  const eventHash = judgement.event?.tags.find((tag) => tag[0] === 'x')?.[1];
  const hash = judgement.hash ?? first.hash;
  return {
    page: page.name,
    verdict: judgement.verdict,
    problems: judgement.problems,
    found: {
      ...(block?.hash ? { hash: block.hash } : {}),
      ...(block?.eventId ? { eventId: block.eventId } : {}),
      ...(judgement.event
        ? { pubkey: judgement.event.pubkey }
        : block?.pubkey
          ? { pubkey: block.pubkey }
          : {}),
      ...(eventHash ? { eventHash } : {}),
    },
    expected: {
      ...(hash ? { hash } : {}),
      ...(expected.pubkey ? { pubkey: expected.pubkey } : {}),
    },
    ...(judgement.spec ? { spec: judgement.spec } : {}),
    ...(loaded.eventFrom ? { eventFrom: loaded.eventFrom } : {}),
    ...(page.address ? { address: page.address } : {}),
  };
}
