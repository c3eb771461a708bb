// The rule book for signed files: whether a file is what its NIP-94 event says, decided from what a verifier
// found — the event, the file's hash, and, where it keeps them, the file's bytes and a record beside the
// event. The server's verify answers and pages call `judgeFileEvent`; pages have judgePage (rules.ts). Both
// run the same event checks (event-checks.ts), under their own codes: `file.*` here. Pure, like rules.ts.
import {
  checkEvent,
  type EventChecks,
  type EventEvidence,
  type EventFamily,
  type Judgement,
  PURE_CHECKS,
} from './event-checks.js';
import { createProblem, decideVerdict, type Problem, type ProblemCode } from './problem-codes.js';

/** Everything {@link judgeFileEvent} decides from. */
export interface FileJudgeInput {
  /** The file's SHA-256, lowercase hex: the hash asked about (a server's record is kept under it). */
  hash: string;
  /** The file's event as found, or why there is none (`missing`: `file.not_found`). */
  event: EventEvidence;
  /**
   * The file's bytes as the verifier found them: their SHA-256 (and size), or why they could not be read.
   * Absent: the bytes were not the verifier's to check (only the event was judged).
   */
  file?: { sha256: string; size?: number } | { unreadable: string };
  /**
   * What a record kept beside the event states otherwise than the event, one sentence each (the server's
   * stored columns against its signed event): each is a `file.record`. Absent or empty: nothing differs.
   */
  recordMismatches?: readonly string[];
  /** Id and signature checks (default: nostr-tools' pure JS). */
  checks?: EventChecks;
}

/** The shared event checks (event-checks.ts) under the file event's codes. */
const FILE_EVENT: EventFamily = {
  noun: 'file',
  malformed: 'file.malformed',
  id: 'file.event_id',
  signature: 'file.signature',
  kind: 'file.kind',
};

/**
 * Decide one signed file's verdict: the event's shape, id, signature and kind (the checks judgePage runs
 * on a page's event, as `file.*`), its `x` tag against the file's hash, each mismatch of a record kept
 * beside it, and the file's bytes against the hash. The same `Judgement` shape as judgePage: a verdict and
 * coded problems (`valid`, `invalid`, or `not_found` for an outage: no event, unreadable bytes).
 *
 * The `x` check accepts any `x` tag equal to the hash, as the server always has: an event it signed holds
 * one. It runs on whatever was found with a `tags` array, so a malformed event still says whether its tag
 * names the file.
 *
 * @example
 * ```ts
 * const { verdict, problems } = judgeFileEvent({
 *   hash,
 *   event: { found: record.event },
 *   file: { sha256: digestOfStoredBytes },
 * });
 * problems.map((problem) => problem.code); // e.g. ['file.signature']
 * ```
 */
export function judgeFileEvent(input: FileJudgeInput): Judgement {
  const problems: Problem[] = [];
  const add = (code: ProblemCode, message: string) => problems.push(createProblem(code, message));
  const result: Omit<Judgement, 'verdict' | 'problems'> = {};
  const { hash, event: evidence } = input;
  if ('missing' in evidence) add('file.not_found', evidence.missing);
  else if ('malformed' in evidence) add('file.malformed', evidence.malformed);
  else {
    const event = checkEvent(evidence.found, evidence.from, FILE_EVENT, input.checks ?? PURE_CHECKS, add);
    if (event) result.event = event;
    const tags = (evidence.found as { tags?: unknown } | null)?.tags;
    const hashes: unknown[] = Array.isArray(tags)
      ? tags.filter((tag) => Array.isArray(tag) && tag[0] === 'x').map((tag) => tag[1])
      : [];
    if (!hashes.includes(hash))
      add(
        'file.hash',
        hashes.length === 0
          ? `the event has no \`x\` tag, so it names no file (this file’s hash is \`${hash}\`)`
          : `the event is for another file: its \`x\` tag is \`${String(hashes[0]).slice(0, 100)}\`, this file’s hash is \`${hash}\``,
      );
  }
  for (const mismatch of input.recordMismatches ?? []) add('file.record', mismatch);
  const { file } = input;
  if (file !== undefined && 'unreadable' in file) add('file.unreadable', file.unreadable);
  else if (file !== undefined && file.sha256 !== hash)
    add(
      'file.bytes',
      `the file’s bytes hash to \`${file.sha256}\`${file.size === undefined ? '' : ` (${file.size} bytes)`}, not to the signed hash \`${hash}\``,
    );
  // Every file problem is an error: no ordering of warnings to do.
  return { ...result, verdict: decideVerdict(problems), problems };
}
