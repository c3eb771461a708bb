import { computeEventId, jsEngine, loadSigningEngine, type SigningEngine } from '@siegel/core/crypto';
import { type NostrEvent, validateEvent } from 'nostr-tools/core';

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
 * The Schnorr engine of `@siegel/core/crypto` that signatures are verified with: the pure-JS one until
 * {@link prepareEventChecks} has loaded the fastest available one (WebAssembly), so that
 * {@link checkStoredEvent} stays synchronous and works before (and in tests without) the start-up work.
 */
let engine: SigningEngine = jsEngine;

/**
 * Re-check a stored event against the file hash it claims, on every call: its id is recomputed (SHA-256 of
 * the NIP-01 serialization, after the event's fields are checked for their types) and compared, its `x` tag
 * compared with the hash, and its Schnorr signature verified. A signature is a pure function of (id, pubkey,
 * sig) and the id is recomputed from the content first, so a verification that passed for the same triple is
 * remembered; any other triple is verified.
 */
export function checkStoredEvent(event: NostrEvent, hash: string): RecordVerdict {
  const reasons: string[] = [];
  let idOk = false;
  try {
    // A stored event with mistyped fields is refused as altered, as nostr-tools' serializer refuses it.
    idOk = validateEvent(event) && computeEventId(event) === event.id;
  } catch {
    idOk = false;
  }
  if (!idOk) reasons.push('The event id does not match the event content (the stored event was altered).');
  const memoKey = `${event.id}:${event.pubkey}:${event.sig}`;
  let signatureOk = idOk && verifiedEvents.has(memoKey);
  if (idOk && !signatureOk) {
    try {
      signatureOk = engine.verifyEvent(event);
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

/** Options of {@link prepareEventChecks}. */
export interface PrepareEventChecksOptions {
  /** Called with the reason when the WebAssembly engine cannot be used (pure JS then). Default: nothing. */
  onFallback?: (reason: unknown) => void;
}

/**
 * Build at start what the first signings would otherwise build while they hold an upload in memory: core's
 * Schnorr engine (`loadSigningEngine()`, libsecp256k1 as WebAssembly, loaded and self-tested once per process;
 * the bunker client of `@siegel/core` checks its answers with the same one), and the precomputed tables of
 * the pure-JS verifier (several MB, made on first use). From then on {@link checkStoredEvent} verifies with
 * the loaded engine. A throwaway key signs one throwaway event, which the engine verifies; nothing is stored
 * or sent.
 *
 * @example
 * ```ts
 * await prepareEventChecks({ onFallback: (reason) => console.warn(reason) }); // in main.ts, before listening
 * ```
 * @throws {Error} when the loaded engine cannot verify what it signed.
 */
export async function prepareEventChecks(options: PrepareEventChecksOptions = {}): Promise<void> {
  const loaded = await loadSigningEngine({ onFallback: options.onFallback });
  const secretKey = loaded.generateSecretKey();
  const event = loaded.signEvent(
    { kind: 1063, created_at: 0, tags: [['x', '0'.repeat(64)]], content: '' },
    secretKey,
  );
  secretKey.fill(0);
  // The pure-JS verifier runs once too: the engine's self-test runs it only when WebAssembly loaded, and a
  // fallback engine is that verifier.
  if (!loaded.verifyEvent(event) || !jsEngine.verifyEvent(event))
    throw new Error('The Schnorr verifier does not work');
  engine = loaded;
}
