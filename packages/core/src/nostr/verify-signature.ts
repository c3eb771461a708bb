import type { NostrEvent } from 'nostr-tools/core';
import { jsEngine, type SigningEngine } from './crypto.js';

/**
 * The event's Schnorr signature checked by `engine`; a "no" (or a throw) from the WebAssembly engine is asked
 * again of the pure-JS one: the WebAssembly heap is fixed, and an event near 1 MB fails there whatever its
 * signature (a large, valid event was reported as forged). Only invalid signatures pay for the second check.
 *
 * @example
 * ```ts
 * if (!verifyEventSignature(await loadSigningEngine(), event)) problems.push('the event signature is invalid');
 * ```
 */
export function verifyEventSignature(engine: SigningEngine, event: NostrEvent): boolean {
  try {
    if (engine.verifyEvent(event)) return true;
  } catch {}
  return engine !== jsEngine && jsEngine.verifyEvent(event);
}
