import type { Event } from 'nostr-tools';
import { verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callBunker as call, type RunningBunker, startBunker } from '../support/bunker-process.js';

let bunker: RunningBunker;
let pubkey: string;

/** Call the bunker with the API token unless another (or `null`) is given. */
function callBunker(
  _url: string,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown } = {},
) {
  return call(bunker.url, method, path, {
    ...options,
    token: options.token === undefined ? bunker.apiToken : options.token,
  });
}

function template(i: number) {
  return {
    kind: 1063,
    created_at: 1_700_000_000 + i,
    tags: [['x', String(i).padStart(64, '0')]],
    content: `page ${i}`,
  };
}

beforeAll(async () => {
  bunker = await startBunker({ keys: [{ name: 'default' }, { name: 'cold', locked: true }] });
  pubkey = bunker.pubkey;
});

afterAll(async () => {
  await bunker?.stop();
});

describe('a real siegel-bunker process on loopback', () => {
  it('lists its keys', async () => {
    const res = await callBunker(bunker.url, 'GET', '/api/keys');
    expect(res.status).toBe(200);
    const keys = (await res.json()) as {
      name: string;
      pubkey: string;
      npub: string;
      locked: boolean;
      created_at: number;
    }[];
    expect(keys.map(({ name, locked }) => ({ name, locked }))).toEqual([
      { name: 'cold', locked: true },
      { name: 'default', locked: false },
    ]);
    expect(keys[1]?.pubkey).toBe(pubkey);
    expect(keys[1]?.npub).toMatch(/^npub1/);
  });

  it('signs a batch of 500 templates, in order, every event verifying with the key’s pubkey', async () => {
    const templates = Array.from({ length: 500 }, (_, i) => template(i));
    const res = await callBunker(bunker.url, 'POST', '/api/keys/default/sign', {
      body: { events: templates },
    });
    expect(res.status).toBe(200);
    const { events } = (await res.json()) as { events: Event[] };
    expect(events).toHaveLength(500);
    events.forEach((event, i) => {
      expect(event).toMatchObject({ ...templates[i], pubkey });
      expect(verifyEvent(event)).toBe(true);
    });
    expect(new Set(events.map((e) => e.id)).size).toBe(500);
  });

  it('answers an unknown key with 404 and a locked key with 423', async () => {
    const unknown = await callBunker(bunker.url, 'POST', '/api/keys/nobody/sign', {
      body: { events: [template(0)] },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'key_not_found' } });
    const locked = await callBunker(bunker.url, 'POST', '/api/keys/cold/sign', {
      body: { events: [template(0)] },
    });
    expect(locked.status).toBe(423);
    expect(await locked.json()).toMatchObject({ error: { code: 'key_locked' } });
  });

  it('answers no token and a wrong token with 401', async () => {
    for (const token of [null, 'wrong-token-0123456789', `${bunker.adminToken}x`]) {
      const res = await callBunker(bunker.url, 'GET', '/api/keys', { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('refuses the API token on admin routes', async () => {
    const attempts: [string, string, unknown][] = [
      ['POST', '/api/keys', { name: 'x', generate: true, passphrase: bunker.passphrase }],
      ['POST', '/api/keys/cold/unlock', { passphrase: bunker.passphrase }],
      ['POST', '/api/keys/default/lock', undefined],
      ['DELETE', '/api/keys/default', undefined],
    ];
    for (const [method, path, body] of attempts) {
      const res = await callBunker(bunker.url, method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden' } });
    }
    const keys = (await (await callBunker(bunker.url, 'GET', '/api/keys')).json()) as {
      name: string;
      locked: boolean;
    }[];
    expect(keys).toMatchObject([
      { name: 'cold', locked: true },
      { name: 'default', locked: false },
    ]);
  });

  it('answers the compatibility routes /api/sign and /api/status in their shapes', async () => {
    const signed = await callBunker(bunker.url, 'POST', '/api/sign', {
      body: { keyName: 'default', event: template(7) },
    });
    expect(signed.status).toBe(200);
    const body = (await signed.json()) as { success: boolean; event: Event };
    expect(body.success).toBe(true);
    expect(body.event.pubkey).toBe(pubkey);
    expect(verifyEvent(body.event)).toBe(true);
    const status = await callBunker(bunker.url, 'GET', '/api/status');
    expect(await status.json()).toEqual({ keys: { active: 1, locked: 1 } });
  });
});
