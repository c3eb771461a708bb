import { getEventHash } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { computeEventId } from '../src/nostr/crypto.js';

describe('computeEventId', () => {
  it('equals nostr-tools getEventHash, also for tricky content', () => {
    const pubkey = 'ab'.repeat(32);
    for (const content of [
      '',
      'plain',
      'Grüße "quoted" \\ back',
      'line\nbreak\ttab\r\u0001\u001f',
      '\u2028\u2029 emoji 🎉',
      '\ud800 lone',
    ]) {
      const event = {
        kind: 1063,
        created_at: 1_700_000_000,
        pubkey,
        content,
        tags: [
          ['x', content],
          ['alt', `<${content}>`],
        ],
      };
      expect(computeEventId(event)).toBe(getEventHash(event));
    }
  });
});
