import type { SigningEngine } from '@siegel/core/crypto';
import type { EventTemplate, VerifiedEvent } from 'nostr-tools/core';
import * as nip04 from 'nostr-tools/nip04';
import * as nip19 from 'nostr-tools/nip19';
import * as nip44 from 'nostr-tools/nip44';
import * as nip49 from 'nostr-tools/nip49';
import { type AuditLog, noAuditLog } from './audit-log.js';
import { prepareDataDir } from './data-dir.js';
import { BunkerError } from './errors.js';
import { type KeyFile, readKeyFiles, removeKeyFile, writeKeyFile } from './key-file.js';
import { decodeSecretKey, encryptSecretKey, isValidSecretKey } from './key-material.js';
import { assertKeyName } from './key-name.js';
import type { Logger } from './logger.js';
import { Throttle } from './throttle.js';

/** A key as the API shows it. Never the secret. */
export interface KeyInfo {
  name: string;
  /** x-only public key, lowercase hex. */
  pubkey: string;
  /** The public key as NIP-19 `npub`. */
  npub: string;
  /** `true` while only the encrypted form is in memory. */
  locked: boolean;
  /** Unix seconds. */
  created_at: number;
}

/** The encryption methods a key offers its NIP-46 clients. */
export type KeyCipherMethod = 'nip44_encrypt' | 'nip44_decrypt' | 'nip04_encrypt' | 'nip04_decrypt';

/** How to make a new key: generate one, or import `nsec1…` / `ncryptsec1…` / hex. */
export interface CreateKeyOptions {
  /** The key to import; a new key is generated when absent. */
  import?: string;
  /** Encrypts the key at rest (for an imported `ncryptsec`: the one it was encrypted with). */
  passphrase: string;
}

/** Options of {@link KeyStore.open}. */
export interface KeyStoreOptions {
  /** Directory holding `keys/*.json`; created (mode `0700`) when missing, refused when group or others may write to it. */
  dataDir: string;
  /** The Schnorr implementation to sign with. */
  engine: SigningEngine;
  /** Where signatures are recorded. Default: nowhere. */
  audit?: AuditLog;
  /** Lock keys not used for this many milliseconds. Default: `0` = never. */
  autoLockMs?: number;
  /** Default: silent. */
  logger?: Logger;
  /** Clock, in milliseconds. Default: `Date.now`. */
  now?: () => number;
}

interface Entry {
  file: KeyFile;
  npub: string;
  /** Present only while unlocked. */
  secret?: Uint8Array;
  lastUsed: number;
}

/**
 * The keys of one data directory. Each is stored encrypted (NIP-49) in `{dataDir}/keys/{name}.json` and
 * starts locked; unlocking decrypts the secret into memory, locking wipes it.
 *
 * @example
 * ```ts
 * const store = await KeyStore.open({ dataDir: '.bunker', engine: await loadSigningEngine() });
 * store.unlock('default', passphrase);
 * const [event] = await store.sign('default', [{ kind: 1, created_at: 0, tags: [], content: 'hi' }]);
 * ```
 */
export class KeyStore {
  readonly dataDir: string;
  readonly #engine: SigningEngine;
  readonly #audit: AuditLog;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  readonly #autoLockMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Set<string>();
  /** Keys that refuse to be locked, with the reason (see {@link KeyStore.keepUnlocked}). */
  readonly #keptUnlocked = new Map<string, string>();
  readonly #throttle: Throttle;
  #timer: NodeJS.Timeout | undefined;

  private constructor(options: KeyStoreOptions) {
    this.dataDir = options.dataDir;
    this.#engine = options.engine;
    this.#audit = options.audit ?? noAuditLog;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#autoLockMs = options.autoLockMs ?? 0;
    // 0.5 s after the first wrong passphrase, doubling up to 60 s.
    this.#throttle = new Throttle({
      now: this.#now,
      message: (name, seconds) => `Too many wrong passphrases for key \`${name}\`: retry in ${seconds} s`,
    });
  }

  /**
   * Open a data directory and read its keys, all locked.
   *
   * @throws {BunkerError} `invalid_request` when the data directory or its `keys/` is writable by group or
   *   others (see `prepareDataDir`).
   * @throws the file system's error when the directory cannot be created or read.
   */
  static async open(options: KeyStoreOptions): Promise<KeyStore> {
    const store = new KeyStore(options);
    await prepareDataDir(options.dataDir);
    const files = await readKeyFiles(options.dataDir, (file, reason) =>
      options.logger?.warn(`skipping key file \`${file}\`: ${reason}`),
    );
    for (const file of files) {
      store.#entries.set(file.name, { file, npub: nip19.npubEncode(file.pubkey), lastUsed: 0 });
    }
    if (store.#autoLockMs > 0) {
      const every = Math.max(50, Math.min(store.#autoLockMs / 4, 30_000));
      store.#timer = setInterval(() => store.lockIdle(), every);
      store.#timer.unref();
    }
    return store;
  }

  /** Every key, sorted by name. */
  list(): KeyInfo[] {
    return [...this.#entries.values()].map(info).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** @throws {BunkerError} `key_not_found`. */
  get(name: string): KeyInfo {
    return info(this.#entry(name));
  }

  /** Numbers of unlocked and locked keys. */
  status(): { active: number; locked: number } {
    let active = 0;
    for (const entry of this.#entries.values()) if (entry.secret) active++;
    return { active, locked: this.#entries.size - active };
  }

  /**
   * Generate or import a key, write it encrypted, and keep it unlocked.
   *
   * @throws {BunkerError} `invalid_request` (bad name, passphrase or key), `key_exists`, `forbidden` (an
   *   `ncryptsec` that does not open with the passphrase).
   */
  async create(name: string, options: CreateKeyOptions): Promise<KeyInfo> {
    assertKeyName(name);
    if (this.#entries.has(name) || this.#pending.has(name)) {
      throw new BunkerError('key_exists', `A key named \`${name}\` already exists`);
    }
    this.#pending.add(name);
    try {
      const input =
        options.import === undefined
          ? { secretKey: this.#engine.generateSecretKey(), keySecurity: 0x01 as const }
          : decodeSecretKey(options.import, options.passphrase);
      const ncryptsec =
        input.ncryptsec ?? encryptSecretKey(input.secretKey, options.passphrase, input.keySecurity);
      const pubkey = this.#engine.getPublicKey(input.secretKey);
      const file: KeyFile = {
        version: 1,
        name,
        pubkey,
        ncryptsec,
        created_at: Math.floor(this.#now() / 1000),
      };
      await writeKeyFile(this.dataDir, file);
      const entry: Entry = {
        file,
        npub: nip19.npubEncode(pubkey),
        secret: input.secretKey,
        lastUsed: this.#now(),
      };
      this.#entries.set(name, entry);
      this.#logger?.info(`key \`${name}\` created (${entry.npub})`);
      return info(entry);
    } finally {
      this.#pending.delete(name);
    }
  }

  /**
   * Decrypt a key into memory. A wrong passphrase leaves it locked; after each failure the key's next
   * attempt must wait (0.5 s, doubling up to 60 s).
   *
   * @throws {BunkerError} `key_not_found`, `forbidden` (wrong passphrase), `too_many_attempts` (throttled).
   */
  unlock(name: string, passphrase: string): KeyInfo {
    const entry = this.#entry(name);
    if (entry.secret) return info(entry);
    this.#throttle.check(name);
    const secret = this.#decrypt(name, entry, passphrase);
    if (secret === undefined) {
      this.#throttle.fail(name);
      this.#logger?.warn(`wrong passphrase for key \`${name}\``);
      throw new BunkerError('forbidden', `Wrong passphrase for key \`${name}\``);
    }
    this.#throttle.succeed(name);
    entry.secret = secret;
    entry.lastUsed = this.#now();
    this.#logger?.info(`key \`${name}\` unlocked`);
    return info(entry);
  }

  /**
   * Try one passphrase on every locked key (auto-unlock at start). Not throttled.
   *
   * @returns the names that opened and the names that did not.
   */
  unlockAll(passphrase: string): { unlocked: string[]; failed: string[] } {
    const unlocked: string[] = [];
    const failed: string[] = [];
    for (const [name, entry] of this.#entries) {
      if (entry.secret) continue;
      let secret: Uint8Array | undefined;
      try {
        secret = this.#decrypt(name, entry, passphrase);
      } catch (error) {
        // An inconsistent key file stays locked, reported with the rest; it never signs.
        this.#logger?.warn((error as Error).message);
      }
      if (secret === undefined) {
        failed.push(name);
        continue;
      }
      entry.secret = secret;
      entry.lastUsed = this.#now();
      unlocked.push(name);
    }
    return { unlocked, failed };
  }

  /**
   * The secret of `entry` under `passphrase`, or `undefined` for a wrong passphrase.
   *
   * @throws {BunkerError} `internal_error` when the secret opens but is not the key file's pubkey.
   */
  #decrypt(name: string, entry: { file: { ncryptsec: string; pubkey: string } }, passphrase: string) {
    let secret: Uint8Array;
    try {
      secret = nip49.decrypt(entry.file.ncryptsec, passphrase);
    } catch {
      return undefined;
    }
    // A key file edited by hand may decrypt to bytes that are no key at all: the engine would throw.
    if (!isValidSecretKey(secret) || this.#engine.getPublicKey(secret) !== entry.file.pubkey) {
      secret.fill(0);
      throw new BunkerError(
        'internal_error',
        `Key file \`${name}.json\` is inconsistent: its pubkey does not match`,
      );
    }
    return secret;
  }

  /**
   * Wipe a key's secret from memory.
   *
   * @throws {BunkerError} `key_not_found`; `key_not_lockable` (409) for a key kept unlocked.
   */
  lock(name: string): KeyInfo {
    const entry = this.#entry(name);
    const reason = this.#keptUnlocked.get(name);
    if (reason !== undefined) {
      throw new BunkerError('key_not_lockable', `Key \`${name}\` cannot be locked: ${reason}`);
    }
    this.#wipe(name, entry);
    return info(entry);
  }

  /**
   * Make an unlocked key refuse {@link KeyStore.lock} and auto-lock, for a key that could never be unlocked
   * again: the throwaway key of `siegel-bunker start --dev`, whose passphrase was never shown. Closing the
   * store and deleting the key still wipe it.
   *
   * @param reason - why, finishing the sentence "Key `name` cannot be locked: …".
   * @throws {BunkerError} `key_not_found`; `key_locked` when the key is locked already.
   */
  keepUnlocked(name: string, reason: string): void {
    if (!this.#entry(name).secret) throw new BunkerError('key_locked', `Key \`${name}\` is locked`);
    this.#keptUnlocked.set(name, reason);
  }

  /** Why a key refuses to be locked, or `undefined` when it may be locked. */
  lockRefusal(name: string): string | undefined {
    const reason = this.#keptUnlocked.get(name);
    return reason === undefined ? undefined : `Key \`${name}\` cannot be locked: ${reason}`;
  }

  #wipe(name: string, entry: Entry): void {
    if (entry.secret) {
      entry.secret.fill(0);
      entry.secret = undefined;
      this.#logger?.info(`key \`${name}\` locked`);
    }
  }

  /** Lock every key idle for longer than the auto-lock period (called by a timer); keys kept unlocked stay. */
  lockIdle(): void {
    if (this.#autoLockMs <= 0) return;
    const now = this.#now();
    for (const [name, entry] of this.#entries) {
      if (this.#keptUnlocked.has(name)) continue;
      if (entry.secret && now - entry.lastUsed >= this.#autoLockMs) {
        this.lock(name);
        this.#logger?.info(`key \`${name}\` auto-locked after ${Math.round(this.#autoLockMs / 1000)} s idle`);
      }
    }
  }

  /**
   * Delete a key from memory and disk.
   *
   * @throws {BunkerError} `key_not_found`.
   */
  async delete(name: string): Promise<void> {
    this.#wipe(name, this.#entry(name));
    this.#keptUnlocked.delete(name);
    this.#entries.delete(name);
    await removeKeyFile(this.dataDir, name);
    this.#logger?.info(`key \`${name}\` deleted`);
  }

  /**
   * Sign templates with a key, in order, and record each signature in the audit log. Templates are not
   * mutated; `pubkey`, `id` and `sig` are set by the bunker.
   *
   * @param options.client - the NIP-46 client (hex pubkey) asking, recorded in the audit log.
   * @throws {BunkerError} `key_not_found`, `key_locked`.
   */
  async sign(
    name: string,
    templates: readonly EventTemplate[],
    options: { client?: string } = {},
  ): Promise<VerifiedEvent[]> {
    const entry = this.#entry(name);
    const secret = entry.secret;
    if (!secret) throw new BunkerError('key_locked', `Key \`${name}\` is locked`);
    const events = templates.map((template) => this.#engine.signEvent(template, secret));
    entry.lastUsed = this.#now();
    const time = new Date(this.#now()).toISOString();
    const client = options.client === undefined ? {} : { client: options.client };
    await this.#audit.record(events.map((e) => ({ time, key: name, id: e.id, kind: e.kind, ...client })));
    return events;
  }

  /**
   * NIP-44 (v2) or NIP-04 encryption with a key, for its NIP-46 clients: encrypt `text` to `peer`, or
   * decrypt what `peer` sent.
   *
   * @throws {BunkerError} `key_not_found`, `key_locked`; `invalid_request` when `peer` is no pubkey or the
   *   ciphertext does not decrypt.
   */
  cipher(name: string, method: KeyCipherMethod, peer: string, text: string): string {
    const entry = this.#entry(name);
    const secret = entry.secret;
    if (!secret) throw new BunkerError('key_locked', `Key \`${name}\` is locked`);
    if (!/^[0-9a-f]{64}$/.test(peer)) {
      throw new BunkerError('invalid_request', `\`${peer.slice(0, 80)}\` is not a hex pubkey`);
    }
    entry.lastUsed = this.#now();
    try {
      switch (method) {
        case 'nip44_encrypt':
          return nip44.encrypt(text, nip44.getConversationKey(secret, peer));
        case 'nip44_decrypt':
          return nip44.decrypt(text, nip44.getConversationKey(secret, peer));
        case 'nip04_encrypt':
          return nip04.encrypt(secret, peer, text);
        case 'nip04_decrypt':
          return nip04.decrypt(secret, peer, text);
      }
    } catch (cause) {
      throw new BunkerError('invalid_request', `${method} failed: ${(cause as Error).message}`, { cause });
    }
  }

  /** Lock every key and stop the auto-lock timer. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const [name, entry] of this.#entries) this.#wipe(name, entry);
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (!entry) throw new BunkerError('key_not_found', `No key named \`${name.slice(0, 80)}\``);
    return entry;
  }
}

function info(entry: Entry): KeyInfo {
  const { name, pubkey, created_at } = entry.file;
  return { name, pubkey, npub: entry.npub, locked: !entry.secret, created_at };
}
