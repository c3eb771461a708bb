import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core';
import * as pure from 'nostr-tools/pure';

/** The Schnorr implementation the bunker signs with. */
export interface SigningEngine {
  /** `wasm` (libsecp256k1 via nostr-wasm) or `js` (nostr-tools' pure-JS default). */
  readonly name: 'wasm' | 'js';
  /** 32 random bytes that make a valid secret key. */
  generateSecretKey(): Uint8Array;
  /** The x-only public key, lowercase hex. */
  getPublicKey(secretKey: Uint8Array): string;
  /**
   * Sign a template. The template is never mutated: the engine signs a fresh copy of its four fields.
   */
  signEvent(template: EventTemplate, secretKey: Uint8Array): VerifiedEvent;
}

/** The pure-JS engine of nostr-tools (always available). */
export const jsEngine: SigningEngine = {
  name: 'js',
  generateSecretKey: pure.generateSecretKey,
  getPublicKey: pure.getPublicKey,
  signEvent: (template, secretKey) => pure.finalizeEvent(copyTemplate(template), secretKey),
};

let loading: Promise<SigningEngine> | undefined;

/** Options of {@link loadSigningEngine}. */
export interface LoadSigningEngineOptions {
  /** Called with the reason when the WebAssembly engine could not be used. Default: nothing. */
  onFallback?: (reason: unknown) => void;
  /**
   * Loads the WebAssembly engine. Default: `nostr-tools/wasm` with `nostr-wasm`, once per process. Given,
   * it is called every time (used to test the fallback).
   */
  loadWasm?: () => Promise<SigningEngine>;
}

/**
 * Load the fastest available engine: libsecp256k1 compiled to WebAssembly (`nostr-tools/wasm` with
 * `nostr-wasm`), checked once against the pure-JS verifier; the pure-JS engine when that cannot load.
 *
 * @example
 * ```ts
 * const engine = await loadSigningEngine({ onFallback: (reason) => console.warn(reason) });
 * engine.signEvent({ kind: 1, created_at: 0, tags: [], content: 'hi' }, secretKey);
 * ```
 */
export function loadSigningEngine(options: LoadSigningEngineOptions = {}): Promise<SigningEngine> {
  const fallBack = (reason: unknown) => {
    options.onFallback?.(reason);
    return jsEngine;
  };
  if (options.loadWasm) return options.loadWasm().then(checkEngine).catch(fallBack);
  loading ??= loadWasmEngine().then(checkEngine);
  return loading.catch(fallBack);
}

async function loadWasmEngine(): Promise<SigningEngine> {
  const [{ initNostrWasm }, wasm] = await Promise.all([import('nostr-wasm'), import('nostr-tools/wasm')]);
  wasm.setNostrWasm(await initNostrWasm());
  const engine: SigningEngine = {
    name: 'wasm',
    generateSecretKey: wasm.generateSecretKey,
    getPublicKey: wasm.getPublicKey,
    // nostr-wasm fills id, pubkey and sig into the object it is given: give it a copy.
    signEvent: (template, secretKey) => wasm.finalizeEvent(copyTemplate(template), secretKey),
  };
  return engine;
}

/** Sign one event with the engine and check it with the pure-JS verifier before trusting the engine. */
function checkEngine(engine: SigningEngine): SigningEngine {
  const secretKey = pure.generateSecretKey();
  const event = engine.signEvent(
    { kind: 1, created_at: 0, tags: [['t', 'ü']], content: 'self-test ✓' },
    secretKey,
  );
  if (event.pubkey !== pure.getPublicKey(secretKey) || !pure.verifyEvent(withoutMarks(event))) {
    throw new Error('WebAssembly signing engine failed its self-test');
  }
  secretKey.fill(0);
  return engine;
}

/** The plain fields only, so a cached `verified` mark cannot make the check pass. */
function withoutMarks(event: VerifiedEvent): VerifiedEvent {
  const { id, pubkey, sig, kind, created_at, tags, content } = event;
  return { id, pubkey, sig, kind, created_at, tags, content } as VerifiedEvent;
}

function copyTemplate(template: EventTemplate): EventTemplate {
  return {
    kind: template.kind,
    created_at: template.created_at,
    tags: template.tags.map((tag) => [...tag]),
    content: template.content,
  };
}
