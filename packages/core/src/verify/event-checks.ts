// The checks of a signed event that every judgement runs the same way — its shape, its id, its Schnorr
// signature, and that it is a NIP-94 event (kind 1063 with an `x` tag) — each under its family's codes: a
// page's event (`event.*`, judgePage in rules.ts) and a file's (`file.*`, judgeFileEvent in file-rules.ts).
// Also the shape both return (`Judgement`). Pure, like rules.ts: no Node built-ins and no I/O.
import type { NostrEvent } from 'nostr-tools/core';
import { getEventHash, verifyEvent } from 'nostr-tools/pure';
import { isEventShape } from '../nostr/event-shape.js';
import type { PageSpec } from '../page/parse.js';
import type { Problem, ProblemCode, Verdict } from './problem-codes.js';

/** The event, as the verifier found it — or why it has none. */
export type EventEvidence =
  /** Something was found (a file, a relay's answer, the page's embedded copy); its shape is checked here. */
  | { found: unknown; from?: string }
  /** Nothing was found; `detail` says where it was looked for (site copy, relays). */
  | { missing: string }
  /** A copy was found but is not an event (not JSON, too large): `detail` says what. */
  | { malformed: string };

/** Schnorr and id checks; the default is nostr-tools' pure JS, Node passes its WebAssembly engine. */
export interface EventChecks {
  computeId(event: NostrEvent): string;
  verifySignature(event: NostrEvent): boolean;
}

/** What a judgement decided (judgePage, judgeFileEvent). */
export interface Judgement {
  verdict: Verdict;
  /** Errors first, then warnings; empty for a clean `valid`. */
  problems: Problem[];
  /** The spec the page was read under (the event's); `undefined` when no event was read. */
  spec?: PageSpec;
  /** The page's hash now, under `spec`. */
  hash?: string;
  /** The event, when it has the shape of a signed event (checked or not). */
  event?: NostrEvent;
  /**
   * The referrer against the addresses checked (the page's, the event's `url` and `fallback` tags), when
   * `referrer` was given: `same`, `other` (the warning `referrer.other_page`), or `none` — no referrer, or
   * nothing to compare it with: the reader must compare the address shown with the one they came from.
   */
  referrer?: 'none' | 'same' | 'other';
}

export const PURE_CHECKS: EventChecks = {
  computeId: (event) => getEventHash(event),
  // A fresh object of the NIP-01 fields: nostr-tools caches a verdict on the event under a symbol, which a
  // spread copy of an event it once verified would carry along with an altered signature.
  verifySignature: ({ id, pubkey, created_at, kind, tags, content, sig }) =>
    verifyEvent({ id, pubkey, created_at, kind, tags, content, sig }),
};

/** The codes one family reports the shared event checks under, and what its events are called in messages. */
export interface EventFamily {
  /** `page` or `file`: "the event is not a page event". */
  noun: string;
  /** Not a signed Nostr event (also the evidence `malformed`). */
  malformed: ProblemCode;
  id: ProblemCode;
  signature: ProblemCode;
  /** Not kind 1063, or no `x` tag. */
  kind: ProblemCode;
}

/** The first value of the event's tag `name`. */
export function readTag(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((tag) => tag[0] === name)?.[1];
}

/**
 * Check the event found: its shape, then its id, its signature (only when the id matches: a signature is
 * over the id) and its kind and `x` tag, each failure added under `family`'s code. Returns the event when
 * it has the shape of a signed event (whatever else failed), for the checks that follow.
 *
 * @example
 * ```ts
 * const event = checkEvent(
 *   { found: JSON.parse(text) },
 *   { noun: 'file', malformed: 'file.malformed', id: 'file.event_id', signature: 'file.signature', kind: 'file.kind' },
 *   PURE_CHECKS,
 *   (code, message) => problems.push(createProblem(code, message)),
 * );
 * ```
 */
export function checkEvent(
  found: unknown,
  from: string | undefined,
  family: EventFamily,
  checks: EventChecks,
  add: (code: ProblemCode, message: string) => void,
): NostrEvent | undefined {
  if (!isEventShape(found)) {
    add(family.malformed, `${from ? `\`${from}\`` : 'the event'} is not a signed Nostr event`);
    return undefined;
  }
  if (safeId(checks, found) !== found.id) add(family.id, 'the event id does not match the event’s content');
  else if (!safeVerify(checks, found))
    add(family.signature, 'the event’s Schnorr signature does not verify for its pubkey');
  const x = readTag(found, 'x');
  if (found.kind !== 1063 || x === undefined)
    add(
      family.kind,
      `the event is not a ${family.noun} event: kind ${found.kind}${x === undefined ? ' without an `x` tag' : ''} (a ${family.noun} event is kind 1063 with an \`x\` tag)`,
    );
  return found;
}

function safeId(checks: EventChecks, event: NostrEvent): string | undefined {
  try {
    return checks.computeId(event);
  } catch {
    return undefined;
  }
}

function safeVerify(checks: EventChecks, event: NostrEvent): boolean {
  try {
    return checks.verifySignature(event);
  } catch {
    return false;
  }
}
