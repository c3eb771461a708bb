import type { EventTemplate } from 'nostr-tools';
import { getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { jsEngine, loadSigningEngine } from '../src/index.js';

describe('loadSigningEngine', () => {
  it('loads libsecp256k1 compiled to WebAssembly', async () => {
    expect((await loadSigningEngine()).name).toBe('wasm');
  });

  for (const load of [loadSigningEngine, async () => jsEngine]) {
    it(`signs events that nostr-tools verifies, without mutating the template (${load === loadSigningEngine ? 'wasm' : 'js'})`, async () => {
      const engine = await load();
      const secretKey = engine.generateSecretKey();
      const template = {
        kind: 1,
        created_at: 1_700_000_000,
        tags: [
          ['t', 'ü'],
          ['e', 'x'],
        ],
        content: 'Grüße "quoted"\n😀',
      };
      const before = structuredClone(template);
      const event = engine.signEvent(template, secretKey);
      expect(template).toEqual(before);
      expect(Object.keys(template)).toEqual(['kind', 'created_at', 'tags', 'content']);
      expect(event.pubkey).toBe(getPublicKey(secretKey));
      const { id, pubkey, sig, kind, created_at, tags, content } = event;
      expect(verifyEvent({ id, pubkey, sig, kind, created_at, tags, content })).toBe(true);
      // The signed event does not share its tags with the template either.
      event.tags[0]?.push('changed');
      expect(template.tags[0]).toEqual(['t', 'ü']);
    });
  }

  it('computes the same event id as the pure-JS engine', async () => {
    const wasm = await loadSigningEngine();
    const secretKey = jsEngine.generateSecretKey();
    const template = {
      kind: 1063,
      created_at: 5,
      tags: [['url', 'https://a.example/ä?b=1&c']],
      content: '\u2028<>&',
    };
    expect(wasm.signEvent(template, secretKey).id).toBe(jsEngine.signEvent(template, secretKey).id);
  });

  it('falls back to plain nostr-tools when WebAssembly cannot load', async () => {
    const reasons: unknown[] = [];
    const engine = await loadSigningEngine({
      loadWasm: () => Promise.reject(new Error('WebAssembly is disabled')),
      onFallback: (reason) => reasons.push(reason),
    });
    expect(engine).toBe(jsEngine);
    expect(String(reasons[0])).toContain('WebAssembly is disabled');
  });

  it('falls back when the WebAssembly engine signs wrongly', async () => {
    const broken = {
      ...jsEngine,
      name: 'wasm' as const,
      signEvent: (t: EventTemplate, k: Uint8Array) => ({ ...jsEngine.signEvent(t, k), sig: '0'.repeat(128) }),
    };
    let reason: unknown;
    const engine = await loadSigningEngine({
      loadWasm: async () => broken,
      onFallback: (r) => {
        reason = r;
      },
    });
    expect(engine).toBe(jsEngine);
    expect(String(reason)).toMatch(/self-test/);
  });
});
