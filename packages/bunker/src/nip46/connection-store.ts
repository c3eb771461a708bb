import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SigningEngine } from '@siegel/core/crypto';
import { HEX64 } from '@siegel/core/crypto';
import { writeFileDurable } from '@siegel/core/fs';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';
import { BunkerError } from '../errors.js';
import { isValidKeyName } from '../key-name.js';
import type { Logger } from '../logger.js';
import type { Nip46Permissions } from './permissions.js';

/** One authorised NIP-46 client of one key, as the admin API and the dashboard show it. */
export interface Nip46Client extends Nip46Permissions {
  /** The client's pubkey (hex): the author of its kind-24133 requests. */
  pubkey: string;
  /** The bunker key it signs with. */
  key: string;
  /** The name the client gave at `connect`, if any. */
  name?: string;
  /** Unix seconds. */
  connected_at: number;
  /** Unix seconds of its last request, `0` for never. */
  last_used: number;
}

/** `{dataDir}/nip46.json`. */
interface StateFile {
  version: 1;
  /** Per key name: the secret (hex) of its NIP-46 remote-signer key, which only carries the transport. */
  signers: Record<string, string>;
  clients: Nip46Client[];
}

interface Offer {
  key: string;
  permissions: Nip46Permissions;
  /** The client that used it, once used. */
  usedBy?: string;
}

/** The file name of the NIP-46 state in the data directory. */
export const NIP46_STATE_FILE = 'nip46.json';

/**
 * The NIP-46 side's state: each key's remote-signer key (a separate key that encrypts and signs the
 * kind-24133 messages, so that a locked key can still answer), the authorised clients with their
 * permissions — both kept in `{dataDir}/nip46.json` (mode `0600`), so a restart keeps the connections — and
 * the one-time connection secrets, in memory only (an unused secret dies with the process).
 */
export class ConnectionStore {
  readonly #path: string;
  readonly #engine: SigningEngine;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  readonly #signers = new Map<string, { secret: Uint8Array; pubkey: string }>();
  readonly #clients = new Map<string, Nip46Client>();
  /** By SHA-256 of the secret. */
  readonly #offers = new Map<string, Offer>();
  #saving: Promise<void> = Promise.resolve();
  #dirty: NodeJS.Timeout | undefined;

  private constructor(dataDir: string, engine: SigningEngine, logger?: Logger, now = Date.now) {
    this.#path = join(dataDir, NIP46_STATE_FILE);
    this.#engine = engine;
    this.#logger = logger;
    this.#now = now;
  }

  /**
   * Read `{dataDir}/nip46.json` (none yet: empty). Entries that do not check out are reported and skipped.
   *
   * @throws {BunkerError} `internal_error` when the file exists but is no JSON state file.
   */
  static async open(options: {
    dataDir: string;
    engine: SigningEngine;
    logger?: Logger;
    now?: () => number;
  }): Promise<ConnectionStore> {
    const store = new ConnectionStore(options.dataDir, options.engine, options.logger, options.now);
    let text: string | undefined;
    try {
      text = await readFile(store.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined) store.#load(text);
    return store;
  }

  #load(text: string): void {
    let state: Partial<StateFile>;
    try {
      state = JSON.parse(text) as Partial<StateFile>;
    } catch (cause) {
      throw new BunkerError('internal_error', `\`${this.#path}\` is not JSON: fix or remove it`, { cause });
    }
    for (const [name, hex] of Object.entries(state.signers ?? {})) {
      if (!isValidKeyName(name) || typeof hex !== 'string' || !HEX64.test(hex)) {
        this.#logger?.warn(`${NIP46_STATE_FILE}: skipping the remote-signer key of \`${name}\``);
        continue;
      }
      const secret = hexToBytes(hex);
      this.#signers.set(name, { secret, pubkey: this.#engine.getPublicKey(secret) });
    }
    for (const client of Array.isArray(state.clients) ? state.clients : []) {
      if (!isClient(client)) {
        this.#logger?.warn(`${NIP46_STATE_FILE}: skipping a client entry that does not check out`);
        continue;
      }
      this.#clients.set(clientId(client.key, client.pubkey), client);
    }
  }

  /** The remote-signer pubkey of a key, made (and saved) on first use. */
  async signerPubkey(key: string): Promise<string> {
    let signer = this.#signers.get(key);
    if (!signer) {
      const secret = this.#engine.generateSecretKey();
      signer = { secret, pubkey: this.#engine.getPublicKey(secret) };
      this.#signers.set(key, signer);
      await this.save();
    }
    return signer.pubkey;
  }

  /** Every remote-signer pubkey, to subscribe to. */
  signerPubkeys(): string[] {
    return [...this.#signers.values()].map((signer) => signer.pubkey);
  }

  /** The key whose remote-signer pubkey this is, with that signer's secret; `undefined` for none. */
  signerByPubkey(pubkey: string): { key: string; secret: Uint8Array } | undefined {
    for (const [key, signer] of this.#signers)
      if (signer.pubkey === pubkey) return { key, secret: signer.secret };
    return undefined;
  }

  /** A new one-time connection secret for `key`, offering `permissions`. */
  offer(key: string, permissions: Nip46Permissions): string {
    const secret = randomBytes(16).toString('hex');
    this.#offers.set(digest(secret), { key, permissions });
    return secret;
  }

  /**
   * Use a connection secret: the first client to present it for its key gets its offer; any later use
   * (by another client, or by the same one after it was revoked), another key, or a secret never made is
   * refused.
   *
   * @returns the offered permissions.
   * @throws {BunkerError} `forbidden`.
   */
  redeem(key: string, secret: string, client: string): Nip46Permissions {
    const offer = this.#offers.get(digest(secret));
    if (!offer || offer.key !== key) {
      throw new BunkerError(
        'forbidden',
        'Unknown connection secret: ask the bunker admin for a new bunker:// URI',
      );
    }
    if (offer.usedBy !== undefined) {
      throw new BunkerError(
        'forbidden',
        'This connection secret was used already: each bunker:// URI connects one client; ask for a new one',
      );
    }
    offer.usedBy = client;
    return offer.permissions;
  }

  /** The authorised client `pubkey` of `key`, or `undefined`. */
  client(key: string, pubkey: string): Nip46Client | undefined {
    return this.#clients.get(clientId(key, pubkey));
  }

  /** Authorise a client (replacing an earlier authorisation of the same client and key) and save. */
  async authorise(
    key: string,
    pubkey: string,
    permissions: Nip46Permissions,
    name?: string,
  ): Promise<Nip46Client> {
    const now = Math.floor(this.#now() / 1000);
    const client: Nip46Client = {
      pubkey,
      key,
      ...(name !== undefined && { name }),
      kinds: [...permissions.kinds],
      nip44: permissions.nip44,
      nip04: permissions.nip04,
      connected_at: now,
      last_used: now,
    };
    this.#clients.set(clientId(key, pubkey), client);
    await this.save();
    return client;
  }

  /** Note a request of a client; saved within a second (not on every request). */
  touch(client: Nip46Client): void {
    client.last_used = Math.floor(this.#now() / 1000);
    this.#dirty ??= setTimeout(() => {
      this.#dirty = undefined;
      this.save().catch((error: unknown) =>
        this.#logger?.error(`saving ${NIP46_STATE_FILE}: ${String(error)}`),
      );
    }, 1000);
    this.#dirty.unref();
  }

  /** Every authorised client, by key then connection time. */
  list(): Nip46Client[] {
    return [...this.#clients.values()]
      .map((client) => ({ ...client, kinds: [...client.kinds] }))
      .sort((a, b) => (a.key === b.key ? a.connected_at - b.connected_at : a.key < b.key ? -1 : 1));
  }

  /**
   * Remove a client from the allow list at once (its next request is refused) and save.
   *
   * @throws {BunkerError} `not_found` when there is no such connection.
   */
  async revoke(key: string, pubkey: string): Promise<void> {
    if (!this.#clients.delete(clientId(key, pubkey))) {
      throw new BunkerError(
        'not_found',
        `No NIP-46 connection of \`${pubkey.slice(0, 64)}\` to key \`${key}\``,
      );
    }
    this.#logger?.info(`NIP-46 client ${pubkey} of key \`${key}\` revoked`);
    await this.save();
  }

  /** Write the state file (durably, `0600`); writes are serialised. */
  save(): Promise<void> {
    const state: StateFile = {
      version: 1,
      signers: Object.fromEntries([...this.#signers].map(([key, s]) => [key, bytesToHex(s.secret)])),
      clients: [...this.#clients.values()],
    };
    const text = `${JSON.stringify(state, null, 2)}\n`;
    const written = this.#saving.then(() => writeFileDurable(this.#path, text));
    this.#saving = written.catch(() => {});
    return written;
  }

  /** Save pending changes and wipe the remote-signer secrets from memory. */
  async close(): Promise<void> {
    if (this.#dirty) {
      clearTimeout(this.#dirty);
      this.#dirty = undefined;
      await this.save().catch(() => {});
    }
    await this.#saving;
    for (const signer of this.#signers.values()) signer.secret.fill(0);
  }
}

function clientId(key: string, pubkey: string): string {
  return `${key}\n${pubkey}`;
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function isClient(value: unknown): value is Nip46Client {
  const c = value as Partial<Nip46Client> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.pubkey === 'string' &&
    HEX64.test(c.pubkey) &&
    typeof c.key === 'string' &&
    isValidKeyName(c.key) &&
    Array.isArray(c.kinds) &&
    c.kinds.every((k) => Number.isInteger(k) && k >= 0 && k <= 65535) &&
    typeof c.nip44 === 'boolean' &&
    typeof c.nip04 === 'boolean' &&
    Number.isInteger(c.connected_at) &&
    Number.isInteger(c.last_used) &&
    (c.name === undefined || typeof c.name === 'string')
  );
}
