import { createHash } from 'node:crypto';
import type { NostrEvent } from 'nostr-tools/core';
import { serializeEvent, verifyEvent } from 'nostr-tools/pure';

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
 * Re-check a stored event against the file hash it claims, on every call: its id is recomputed (SHA-256 of
 * the NIP-01 serialization) and compared, its `x` tag compared with the hash, and its Schnorr signature
 * verified. A signature is a pure function of (id, pubkey, sig) and the id is recomputed from the content
 * first, so a verification that passed for the same triple is remembered; any other triple is verified.
 */
export function checkStoredEvent(event: NostrEvent, hash: string): RecordVerdict {
  const reasons: string[] = [];
  let idOk = false;
  try {
    idOk = createHash('sha256').update(serializeEvent(event)).digest('hex') === event.id;
  } catch {
    idOk = false;
  }
  if (!idOk) reasons.push('The event id does not match the event content (the stored event was altered).');
  const memoKey = `${event.id}:${event.pubkey}:${event.sig}`;
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
