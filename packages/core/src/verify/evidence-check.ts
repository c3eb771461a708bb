// Re-checking an evidence file offline (`siegel verify --evidence`): every rule-book code is derived again
// from what the file records — the served bytes and headers, the page's event, and the site manifest by
// replaying the one manifest gathering (manifest-evidence.ts) on the recorded relay answers and site files —
// through the same `judgePage`, with no network. What only the reader's browser could see (`live.*`,
// `signer.new`) and what relays and the NIP-05 domain answered are kept as observed then. Evidence is not
// signed; what makes an edit show is that the page's event and the manifests are: an edited event or
// manifest no longer verifies (`evidence.event`, `evidence.manifest`), and edited bytes, headers or events
// give other codes than the extension recorded (`evidence.disagrees`). Pure: no Node built-ins.

import { fromBase64 } from '@exodus/bytes/base64.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { NostrEvent } from 'nostr-tools/core';
import { isEventShape } from '../nostr/event-shape.js';
import type { RelayAnswer } from '../nostr/relay-query-portable.js';
import { CURRENT_SPEC, type PageSpec } from '../page/parse.js';
import { PURE_CHECKS } from './event-checks.js';
import { type Evidence, type EvidenceManifestRecord, isObservedOnly } from './evidence-format.js';
import { createManifestEvidence, type ManifestEvidenceIo } from './manifest-evidence.js';
import {
  createProblem,
  type EventChecks,
  type Judgement,
  judgePage,
  type ManifestEvidence,
  type PageReading,
  PROBLEM_CODES,
  type Problem,
  type Verdict,
} from './rules.js';
import { readServedPage, type ServedPage } from './script/served-page.js';

/** A problem as an evidence file records it (its code may be one this version does not know). */
type RecordedProblem = Evidence['verdict']['problems'][number];

/** What {@link checkEvidence} found. */
export interface EvidenceCheck {
  /** The evidence holds: nothing recorded was edited (no `evidence.*` problem). */
  ok: boolean;
  /**
   * The page's verdict from the evidence: the rule book's, re-derived, with the findings observed then
   * (`live.*`, `signer.new`) and any `evidence.*` problem.
   */
  verdict: Verdict;
  /** The `evidence.*` problems: what recorded was edited. */
  problems: Problem[];
  /** The rule book's judgement, re-derived offline from the recorded bytes, event(s) and manifest. */
  rederived: Judgement;
  /** What the extension recorded: its verdict, state word and problems. */
  recorded: Evidence['verdict'];
  /** The findings only a reader's browser could make, as recorded: not re-checkable. */
  observed: RecordedProblem[];
}

/** A verdict from problems whose codes this version may not know (their recorded severity counts). */
function verdictOf(problems: readonly RecordedProblem[]): Verdict {
  const outage = (code: string) =>
    (PROBLEM_CODES as Record<string, { outage?: true }>)[code]?.outage === true;
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.some((problem) => !outage(problem.code))) return 'invalid';
  return errors.length > 0 ? 'not_found' : 'valid';
}

const codesOf = (problems: readonly RecordedProblem[]) =>
  [...new Set(problems.map((problem) => problem.code))].sort();
const listed = (codes: string[]) =>
  codes.length === 0 ? 'none' : codes.map((code) => `\`${code}\``).join(', ');
/** A filter as text with its keys in order, to find a recorded answer by. */
const filterKey = (filter: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(filter)
      .sort()
      .map((key) => [key, filter[key]]),
  );
const hashHex = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

/** Both page-hash specs a page event may name: the page is read under the one `judgePage` asks for. */
const SPECS: PageSpec[] = ['siegel-page/1', 'siegel-page/2'];

/**
 * The page as recorded, read as every browser verifier reads it (script/served-page.ts: the recorded
 * `Content-Type`, the signer's parser, the block from `<head>`), under each spec.
 */
async function readRecordedPage(bytes: Uint8Array, contentType: string | undefined, selector: string) {
  const readings = new Map<PageSpec, ServedPage>();
  for (const spec of SPECS)
    readings.set(spec, await readServedPage(bytes, { contentType: contentType ?? null, selector, spec }));
  const current = readings.get(CURRENT_SPEC) as ServedPage;
  const readPage = (spec: PageSpec): PageReading => (readings.get(spec) ?? current).reading;
  return { readPage, block: current.block };
}

/** The manifest gathering's I/O, answered from the record: the same code, the same answers, no network. */
function replayIo(
  record: EvidenceManifestRecord,
  answers: Evidence['relays'],
  valid: (event: NostrEvent) => boolean,
): ManifestEvidenceIo {
  /** Stand-ins for files whose hash alone was recorded: the gathering hashes them through `sha256`. */
  const recordedHashes = new WeakMap<Uint8Array, string>();
  return {
    relays: record.relays,
    hintAllowed: (relay) => record.allowedRelays.includes(relay),
    async ask(relay, filter): Promise<RelayAnswer> {
      const key = filterKey(filter);
      const answer = answers.find((one) => one.relay === relay && filterKey(one.filter) === key);
      if (!answer) return { relay, events: [], rejected: 0, error: 'not recorded' };
      return {
        relay,
        // Only what counted then counts now: an edited event is not taken (and is `evidence.manifest`).
        events: answer.events.filter((event): event is NostrEvent => isEventShape(event) && valid(event)),
        rejected: answer.rejected,
        ...(answer.error !== undefined ? { error: answer.error } : {}),
      };
    },
    valid,
    async readSiteFile(path) {
      const file = record.files.find((one) => one.path === path);
      if (file?.body !== undefined) return fromBase64(file.body);
      if (file?.sha256 !== undefined) {
        const standIn = new Uint8Array(0);
        recordedHashes.set(standIn, file.sha256);
        return standIn;
      }
      throw new Error(file?.error ?? `\`${path}\` was not read`);
    },
    async readBlob(server, hash) {
      const blob = record.blobs.find((one) => one.server === server && one.sha256 === hash);
      if (blob?.body !== undefined) return fromBase64(blob.body);
      throw new Error(blob?.error ?? 'not read');
    },
    sha256: (bytes) => recordedHashes.get(bytes) ?? hashHex(bytes),
    ...(record.alsoCheck.length > 0 ? { alsoCheck: () => record.alsoCheck } : {}),
    chunks: record.chunks,
  };
}

/** `evidence.event` / `evidence.manifest`: signed things in the file that no longer verify. */
function checkSigned(evidence: Evidence, valid: (event: NostrEvent) => boolean): Problem[] {
  const problems: Problem[] = [];
  for (const answer of evidence.relays) {
    const manifestLookup = answer.purpose === 'manifest' || answer.purpose === 'relay-list';
    for (const event of answer.events) {
      if (isEventShape(event) && valid(event)) continue;
      const id = isEventShape(event) ? ` \`${event.id}\`` : '';
      problems.push(
        createProblem(
          manifestLookup ? 'evidence.manifest' : 'evidence.event',
          `the event${id} that \`${answer.relay}\` answered for the ${answer.purpose} lookup does not verify: relays’ answers are recorded only when they verify, so it was edited after it was recorded`,
        ),
      );
    }
  }
  for (const file of evidence.manifest?.files ?? []) {
    if (file.body === undefined) continue;
    const bytes = fromBase64(file.body);
    const blobHash = /^\/verify\/manifest-([0-9a-f]{64})\.json$/.exec(file.path)?.[1];
    let good = blobHash !== undefined && hashHex(bytes) === blobHash;
    if (blobHash === undefined)
      try {
        const event = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
        good = isEventShape(event) && valid(event);
      } catch {}
    if (!good)
      problems.push(
        createProblem(
          'evidence.manifest',
          `the site’s \`${file.path}\` as recorded is not ${blobHash === undefined ? 'a signed manifest event that verifies' : 'the bytes its name hashes'}: it was edited after it was recorded`,
        ),
      );
  }
  for (const blob of evidence.manifest?.blobs ?? [])
    if (blob.body !== undefined && hashHex(fromBase64(blob.body)) !== blob.sha256)
      problems.push(
        createProblem(
          'evidence.manifest',
          `the manifest’s path list from \`${blob.server}\` as recorded does not hash to \`${blob.sha256}\`: it was edited after it was recorded`,
        ),
      );
  return problems;
}

/**
 * Re-check an evidence file (read with `readEvidence`) offline: re-derive every rule-book code from the
 * recorded bytes, event(s) and manifest, and compare them, and the verdict, with what the extension
 * recorded.
 *
 * @example
 * ```ts
 * const check = await checkEvidence(readEvidence(await readFile('evidence.json')));
 * if (!check.ok) console.error(check.problems.map((problem) => problem.message).join('\n'));
 * ```
 */
export async function checkEvidence(
  evidence: Evidence,
  options: { checks?: EventChecks } = {},
): Promise<EvidenceCheck> {
  const checks = options.checks ?? PURE_CHECKS;
  const valid = (event: NostrEvent) => {
    try {
      return checks.computeId(event) === event.id && checks.verifySignature(event);
    } catch {
      return false;
    }
  };
  const problems = checkSigned(evidence, valid);
  const bytes = fromBase64(evidence.page.body);
  const { selector } = evidence;
  const { readPage, block } = await readRecordedPage(bytes, evidence.page.headers['content-type'], selector);
  let manifest: ManifestEvidence | undefined;
  const record = evidence.manifest;
  if (record && 'found' in evidence.event) {
    const gather = createManifestEvidence(replayIo(record, evidence.relays, valid));
    manifest = await gather(evidence.event.found, record.hints, record.page, bytes, record.siteGuess);
  }
  const rederived = judgePage({
    selector,
    readPage,
    block,
    event: evidence.event,
    address: evidence.page.address,
    ...(evidence.expected ? { expected: evidence.expected } : {}),
    checks,
    ...(manifest ? { manifest } : {}),
  });
  const recorded = evidence.verdict;
  const observed = recorded.problems.filter((problem) => isObservedOnly(problem.code));
  const recordedCodes = codesOf(recorded.problems.filter((problem) => !isObservedOnly(problem.code)));
  const derivedCodes = codesOf(rederived.problems);
  if (recordedCodes.join(' ') !== derivedCodes.join(' '))
    problems.push(
      createProblem(
        'evidence.disagrees',
        `the extension recorded the rule-book codes ${listed(recordedCodes)}; the recorded bytes, event(s) and manifest give ${listed(derivedCodes)}: something recorded was edited`,
      ),
    );
  const derivedVerdict = verdictOf([...rederived.problems, ...observed]);
  if (recorded.verdict !== derivedVerdict)
    problems.push(
      createProblem(
        'evidence.disagrees',
        `the extension recorded the verdict \`${recorded.verdict}\`; its problems and the recorded facts give \`${derivedVerdict}\``,
      ),
    );
  if (codesOf(evidence.live).join(' ') !== codesOf(observed).join(' '))
    problems.push(
      createProblem(
        'evidence.disagrees',
        `the live findings recorded (${listed(codesOf(evidence.live))}) are not the ones among the extension’s problems (${listed(codesOf(observed))})`,
      ),
    );
  return {
    ok: problems.length === 0,
    verdict: verdictOf([...rederived.problems, ...observed, ...problems]),
    problems,
    rederived,
    recorded,
    observed,
  };
}
