import { verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { callBunker, startBunker } from '../support/bunker-process.js';

// The helper other tests build on: a real bunker with the keys asked for.
describe('startBunker (test support)', () => {
  it('starts a bunker with an unlocked `default` key and a locked one, and stops it', async () => {
    const bunker = await startBunker({ keys: [{ name: 'default' }, { name: 'cold', locked: true }] });
    try {
      expect(bunker.keyName).toBe('default');
      const keys = (await (
        await callBunker(bunker.url, 'GET', '/api/keys', { token: bunker.apiToken })
      ).json()) as {
        name: string;
        pubkey: string;
        locked: boolean;
      }[];
      expect(keys).toMatchObject([
        { name: 'cold', locked: true },
        { name: 'default', pubkey: bunker.pubkey, locked: false },
      ]);
      const res = await callBunker(bunker.url, 'POST', '/api/keys/default/sign', {
        token: bunker.apiToken,
        body: { events: [{ kind: 1, created_at: 1, tags: [], content: 'x' }] },
      });
      const [event] = ((await res.json()) as { events: import('nostr-tools').Event[] }).events;
      expect(event && verifyEvent(event) && event.pubkey).toBe(bunker.pubkey);
      const unlock = await callBunker(bunker.url, 'POST', '/api/keys/cold/unlock', {
        token: bunker.adminToken,
        body: { passphrase: bunker.passphrase },
      });
      expect(unlock.status).toBe(200);
    } finally {
      await bunker.stop();
    }
    await expect(fetch(`${bunker.url}/api/status`)).rejects.toThrow();
  });
});
