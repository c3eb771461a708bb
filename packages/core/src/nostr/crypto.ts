// nostr/ owns what Siegel does with Nostr events themselves, apart from any page: the one Schnorr engine
// every package signs and verifies with (libsecp256k1 as WebAssembly, nostr-tools' pure JS as the
// fallback), the NIP-01 event id, and the relay URLs events point to (relays.ts). The bunker and the file
// server import this file as `@siegel/core/crypto`, so there is exactly one loader of the WebAssembly code.
import { createHash } from 'node:crypto';
import type { EventTemplate, NostrEvent, VerifiedEvent } from 'nostr-tools/core';
import * as pure from 'nostr-tools/pure';

/** 64 lowercase hex characters; the one shape guard for events from outside (for the bunker and the server). */
export { HEX64, isEventShape } from './event-shape.js';

/** The Schnorr implementation in use. Its functions never mutate what they are given. */
export interface SigningEngine {
  /** `wasm` (libsecp256k1 via nostr-wasm) or `js` (nostr-tools' pure-JS code). */
  readonly name: 'wasm' | 'js';
  /** 32 random bytes that make a valid secret key. */
  generateSecretKey(): Uint8Array;
  /** The x-only public key, lowercase hex. */
  getPublicKey(secretKey: Uint8Array): string;
  /** Sign a template: a fresh copy of its four fields gets `id`, `pubkey` and `sig`. */
  signEvent(template: EventTemplate, secretKey: Uint8Array): VerifiedEvent;
  /** Check an event's id and Schnorr signature (on a copy: no `verified` mark is read or left). */
  verifyEvent(event: NostrEvent): boolean;
}

/** The pure-JS engine of nostr-tools (always available). */
export const jsEngine: SigningEngine = {
  name: 'js',
  generateSecretKey: pure.generateSecretKey,
  getPublicKey: pure.getPublicKey,
  signEvent: (template, secretKey) => pure.finalizeEvent(copyTemplate(template), secretKey),
  verifyEvent: (event) => pure.verifyEvent(plainEvent(event)),
};

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

let loading: Promise<SigningEngine> | undefined;

/**
 * Load the fastest available engine once per process: libsecp256k1 compiled to WebAssembly (about 5×
 * faster than pure JS), checked once against the pure-JS verifier; the pure-JS engine when WebAssembly
 * cannot load or fails that self-test.
 *
 * @example
 * ```ts
 * const engine = await loadSigningEngine({ onFallback: (reason) => console.warn(reason) });
 * const event = engine.signEvent({ kind: 1, created_at: 0, tags: [], content: 'hi' }, secretKey);
 * engine.verifyEvent(event); // true
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
  return {
    name: 'wasm',
    generateSecretKey: wasm.generateSecretKey,
    getPublicKey: wasm.getPublicKey,
    // nostr-wasm fills id, pubkey and sig into the object it is given: give it a copy.
    signEvent: (template, secretKey) => wasm.finalizeEvent(copyTemplate(template), secretKey),
    verifyEvent: (event) => wasm.verifyEvent(plainEvent(event)),
  };
}

/** Sign one event with the engine and check it with the pure-JS code before trusting the engine. */
function checkEngine(engine: SigningEngine): SigningEngine {
  const secretKey = pure.generateSecretKey();
  const event = engine.signEvent(
    { kind: 1, created_at: 0, tags: [['t', 'ü']], content: 'self-test ✓' },
    secretKey,
  );
  const tampered = { ...plainEvent(event), content: 'self-test ✗' };
  if (
    event.pubkey !== pure.getPublicKey(secretKey) ||
    !pure.verifyEvent(plainEvent(event)) ||
    !engine.verifyEvent(event) ||
    engine.verifyEvent(tampered)
  ) {
    throw new Error('WebAssembly signing engine failed its self-test');
  }
  secretKey.fill(0);
  return engine;
}

/** The plain fields only, so a cached `verified` mark can neither make a check pass nor be left behind. */
function plainEvent(event: NostrEvent): VerifiedEvent {
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

/**
 * The NIP-01 event id: SHA-256 of `[0, pubkey, created_at, kind, tags, content]` as JSON — what
 * nostr-tools' `getEventHash` computes, with node:crypto (much faster than a JS SHA-256 for thousands of
 * events). Malformed fields simply give an id that does not match.
 *
 * @example
 * ```ts
 * if (computeEventId(event) !== event.id) throw new Error('the event was altered');
 * ```
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
