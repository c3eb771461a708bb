import { createHash } from 'node:crypto';
import { LocalKeySigner } from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';
import { generateSecretKey, serializeEvent, verifyEvent } from 'nostr-tools/pure';
import { verifyEvent as verifyEventWasm } from 'nostr-tools/wasm';

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

/**
 * Build at start what the first signings would otherwise build while they hold an upload in memory: the
 * precomputed tables of nostr-tools' Schnorr verifier (several MB, made on first use), and the nostr-wasm
 * module `@siegel/core` signs and checks bunker answers with (loaded once per process on first use: a
 * throwaway key signs one throwaway event, and its verifier runs once). Nothing is stored or sent.
 *
 * @example
 * ```ts
 * await prepareEventChecks(); // in main.ts, before listening
 * ```
 */
export async function prepareEventChecks(): Promise<void> {
  const [event] = await new LocalKeySigner(generateSecretKey()).signEvents([
    { kind: 1063, created_at: 0, tags: [['x', '0'.repeat(64)]], content: '' },
  ]);
  if (event === undefined || !verifyEvent({ ...event }))
    throw new Error('The Schnorr verifier does not work');
  // `nostr-tools/wasm` is the module instance core set nostr-wasm on (it answers false if it is another one).
  verifyEventWasm({ ...event });
}
