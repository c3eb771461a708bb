import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { decode } from 'nostr-tools/nip19';
import { SiegelError } from '../errors.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import type { Signer } from '../nostr/signer.js';

/**
 * Signs in-process with a secret key held in memory — for tests and offline use. Production sites sign
 * through the bunker, which keeps the key out of the build.
 *
 * @example
 * ```ts
 * const signer = new LocalKeySigner(process.env.SIEGEL_SECRET_KEY!); // 64 hex chars or nsec1…
 * ```
 * @throws {SiegelError} `invalid_options` when the key is neither 64 hex characters nor an `nsec`.
 */
export class LocalKeySigner implements Signer {
  readonly #secretKey: Uint8Array;

  constructor(secretKey: Uint8Array | string) {
    this.#secretKey = parseSecretKey(secretKey);
  }

  async getPublicKey(): Promise<string> {
    return (await loadSigningEngine()).getPublicKey(this.#secretKey);
  }

  /**
   * @throws {SiegelError} `event_refused` when the engine cannot sign one of the templates (the WebAssembly
   * engine's fixed heap fails on an event of about 1 MB).
   */
  async signEvents(templates: EventTemplate[]): Promise<NostrEvent[]> {
    const engine = await loadSigningEngine();
    return templates.map((template) => {
      try {
        return engine.signEvent(template, this.#secretKey);
      } catch (cause) {
        throw new SiegelError(
          'event_refused',
          `the local key could not sign ${templates.length === 1 ? 'it' : `a batch of ${templates.length} events`}: ${(cause as Error)?.message ?? String(cause)}`,
          { cause },
        );
      }
    });
  }

  /** A local key can always sign. */
  async check(): Promise<void> {}
}

function parseSecretKey(key: Uint8Array | string): Uint8Array {
  if (key instanceof Uint8Array) {
    if (key.length === 32) return key;
    throw new SiegelError('invalid_options', `A secret key has 32 bytes, got \`${key.length}\``);
  }
  const trimmed = key.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Uint8Array.from(Buffer.from(trimmed, 'hex'));
  if (trimmed.startsWith('nsec1')) {
    try {
      const decoded = decode(trimmed);
      if (decoded.type === 'nsec') return decoded.data;
    } catch (cause) {
      throw new SiegelError('invalid_options', 'Invalid `nsec` secret key', { cause });
    }
  }
  // Never echo the value: it may be a (mistyped) secret.
  throw new SiegelError('invalid_options', 'A secret key must be 64 hex characters or an `nsec1…` string');
}
