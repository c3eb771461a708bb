import type { NostrEvent } from 'nostr-tools/core';
import { getEventHash, verifyEvent } from 'nostr-tools/pure';

/** The checks run on a stored event each time it is verified. */
export interface RecordChecks {
  /** The event id is the SHA-256 of the event's serialization. */
  event_id: boolean;
  /** The Schnorr signature is valid for the id and the pubkey. */
  signature: boolean;
  /** The event's `x` tag is the file's hash. */
  hash_tag: boolean;
}

/** The outcome of {@link checkStoredEvent}: the checks, and why it failed (empty when it passed). */
export interface RecordVerdict {
  verified: boolean;
  checks: RecordChecks;
  reasons: string[];
}

const MEMO_LIMIT = 10_000;
const verifiedEvents = new Map<string, true>();

/**
 * Re-check a stored event against the file hash it claims: id, Schnorr signature and `x` tag. Every call
 * checks the stored bytes; a Schnorr verification already passed for the exact same serialized event (same
 * id, pubkey, signature, tags, content) is remembered, since its result cannot differ — any change to the
 * stored event makes it a different string and runs the full verification again.
 */
export function checkStoredEvent(event: NostrEvent, hash: string): RecordVerdict {
  const reasons: string[] = [];
  let idOk = false;
  try {
    idOk = getEventHash(event) === event.id;
  } catch {
    idOk = false;
  }
  if (!idOk) reasons.push('The event id does not match the event content (the stored event was altered).');
  const memoKey = JSON.stringify([
    event.id,
    event.pubkey,
    event.sig,
    event.created_at,
    event.kind,
    event.tags,
    event.content,
  ]);
  let signatureOk = idOk && verifiedEvents.has(memoKey);
  if (idOk && !signatureOk) {
    try {
      signatureOk = verifyEvent({ ...event });
    } catch {
      signatureOk = false;
    }
    if (signatureOk) {
      if (verifiedEvents.size >= MEMO_LIMIT) verifiedEvents.clear();
      verifiedEvents.set(memoKey, true);
    }
  }
  if (!signatureOk) reasons.push('The Schnorr signature is not valid for this event and pubkey.');
  const hashTagOk = event.tags.some((tag) => tag[0] === 'x' && tag[1] === hash);
  if (!hashTagOk) reasons.push(`The event's \`x\` tag is not the file hash \`${hash}\`.`);
  return {
    verified: reasons.length === 0,
    checks: { event_id: idOk, signature: signatureOk, hash_tag: hashTagOk },
    reasons,
  };
}
