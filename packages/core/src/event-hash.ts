import { createHash } from 'node:crypto';
import type { NostrEvent } from 'nostr-tools/core';

/**
 * The NIP-01 event id: SHA-256 of `[0, pubkey, created_at, kind, tags, content]` as JSON — what
 * nostr-tools' `getEventHash` computes, with node:crypto (much faster than a JS SHA-256 for thousands of
 * events). Malformed fields simply give an id that does not match.
 */
export function computeEventId(
  event: Pick<NostrEvent, 'pubkey' | 'created_at' | 'kind' | 'tags' | 'content'>,
): string {
  const serialized = JSON.stringify([
    0,
    event.pubkey,
    event.created_at,
    event.kind,
    event.tags,
    event.content,
  ]);
  return createHash('sha256').update(serialized, 'utf8').digest('hex');
}
