import type { NostrEvent } from 'nostr-tools/core';

/** 64 lowercase hex characters: an event id, a pubkey, a SHA-256 hash. */
export const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/**
 * True for a value shaped like a signed Nostr event (NIP-01): lowercase hex `id` and `pubkey` (64) and `sig`
 * (128), integer `kind` and `created_at`, string `content`, and `tags` as arrays of strings. Only the shape:
 * whether the id matches the content and the signature verifies is for `computeEventId` and
 * `verifyEventSignature`. The one guard for every event that comes from outside — a signer's answer, a
 * relay, an event file, a cache or an outbox — in Node and in the browser verify script alike.
 *
 * @example
 * ```ts
 * if (!isEventShape(JSON.parse(text))) throw new Error('not a signed Nostr event');
 * ```
 */
export function isEventShape(value: unknown): value is NostrEvent {
  const event = value as NostrEvent;
  return (
    typeof event === 'object' &&
    event !== null &&
    typeof event.id === 'string' &&
    HEX64.test(event.id) &&
    typeof event.pubkey === 'string' &&
    HEX64.test(event.pubkey) &&
    typeof event.sig === 'string' &&
    HEX128.test(event.sig) &&
    Number.isSafeInteger(event.kind) &&
    Number.isSafeInteger(event.created_at) &&
    typeof event.content === 'string' &&
    Array.isArray(event.tags) &&
    event.tags.every((tag) => Array.isArray(tag) && tag.every((part) => typeof part === 'string'))
  );
}
