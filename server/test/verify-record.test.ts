import { computeEventId, jsEngine } from '@siegel/core/crypto';
import type { NostrEvent } from 'nostr-tools/core';
import { describe, expect, it } from 'vitest';
import { checkStoredEvent, prepareEventChecks } from '../src/verify-record.js';

const HASH = 'ab'.repeat(32);

function signedEvent(): NostrEvent {
  return jsEngine.signEvent(
    { kind: 1063, created_at: 1_700_000_000, tags: [['x', HASH]], content: 'a file' },
    jsEngine.generateSecretKey(),
  );
}

describe('checkStoredEvent', () => {
  // Before and after prepareEventChecks() (pure JS, then core's loaded engine): the same verdicts.
  for (const prepared of [false, true]) {
    it(`verifies id, signature and x tag ${prepared ? 'with the loaded engine' : 'before start-up'}`, async () => {
      if (prepared) await prepareEventChecks();
      const event = signedEvent();
      expect(checkStoredEvent(event, HASH)).toEqual({
        verified: true,
        checks: { event_id: true, signature: true, hash_tag: true },
        reasons: [],
      });
      // Another signature over the same id: the id still matches, the signature does not.
      const forged = { ...event, sig: signedEvent().sig };
      expect(checkStoredEvent(forged, HASH).checks).toEqual({
        event_id: true,
        signature: false,
        hash_tag: true,
      });
      const altered = { ...event, content: 'another file' };
      expect(checkStoredEvent(altered, HASH).checks).toMatchObject({ event_id: false, signature: false });
      expect(checkStoredEvent(event, 'cd'.repeat(32)).checks.hash_tag).toBe(false);
    });
  }

  it('refuses an event with a mistyped field as altered, even when its id is computed over it', () => {
    const event = signedEvent();
    const mistyped = { ...event, created_at: String(event.created_at) } as unknown as NostrEvent;
    mistyped.id = computeEventId(mistyped);
    expect(checkStoredEvent(mistyped, HASH).checks.event_id).toBe(false);
  });
});
