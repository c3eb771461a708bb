import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tokensEqual } from '@siegel/core/auth';
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
  /** The remote-signer pubkey of the `bunker://` URI it connected with (absent: the key's older shared one). */
  signer?: string;
}

/** An unused connection URI, as the dashboard lists it: never its secret. */
export interface PendingUri extends Nip46Permissions {
  key: string;
  /** The remote-signer pubkey of the URI (its own, made for it). */
  signer: string;
  /** Unix seconds. */
  created_at: number;
  /** Unix seconds: after this the secret is refused and the URI's pubkey no longer listened to. */
  expires_at: number;
}

/** A remote-signer key: its secret only carries the NIP-46 transport of one key's clients. */
export interface Transport {
  /** The bunker key it serves. */
  key: string;
  secret: Uint8Array;
  pubkey: string;
  /** `true` for the key of a URI not used yet: only a `connect` with its secret is answered there. */
  pending: boolean;
}

/** `{dataDir}/nip46.json`. */
interface StateFile {
  version: 1;
  /**
   * Per key name: the secret (hex) of the remote-signer key that every URI of that key shared before
   * each URI got its own; kept for the clients that connected with one.
   */
  signers?: Record<string, string>;
  /** Per remote-signer pubkey: its key and secret (hex). */
  transports?: Record<string, { key: string; secret: string }>;
  clients: Nip46Client[];
}

interface Offer extends PendingUri {
  /** SHA-256 of the secret. */
  digest: string;
  transport: Transport;
}

/** How long an unused connection URI works: 10 minutes. */
export const DEFAULT_URI_TTL_MS = 10 * 60_000;

/** The file name of the NIP-46 state in the data directory. */
export const NIP46_STATE_FILE = 'nip46.json';

/**
 * The NIP-46 side's state: the remote-signer keys (separate keys that encrypt and sign the kind-24133
 * messages, so that a locked key can still answer), the authorised clients with their permissions — both
 * kept in `{dataDir}/nip46.json` (mode `0600`), so a restart keeps the connections — and the unused
 * connection URIs, in memory only, each with its own remote-signer key and one-time secret, until they
 * expire (an unused URI also dies with the process).
 *
 * Each URI gets its own remote-signer key so that nobody can even address a `connect` to the bunker
 * without the URI: a stranger's event to the pubkey of an established connection can never be answered
 * and is dropped unread.
 */
export class ConnectionStore {
  readonly #path: string;
  readonly #engine: SigningEngine;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  readonly #uriTtlMs: number;
  /** Remote-signer keys of connections, by pubkey. */
  readonly #transports = new Map<string, Transport>();
  readonly #clients = new Map<string, Nip46Client>();
  /** Unused URIs, by their remote-signer pubkey. */
  readonly #offers = new Map<string, Offer>();
  #saving: Promise<void> = Promise.resolve();
  #dirty: NodeJS.Timeout | undefined;

  private constructor(
    dataDir: string,
    engine: SigningEngine,
    logger?: Logger,
    now = Date.now,
    uriTtlMs = DEFAULT_URI_TTL_MS,
  ) {
    this.#path = join(dataDir, NIP46_STATE_FILE);
    this.#engine = engine;
    this.#logger = logger;
    this.#now = now;
    this.#uriTtlMs = uriTtlMs;
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
    /** How long an unused URI works. Default: 10 minutes. */
    uriTtlMs?: number;
  }): Promise<ConnectionStore> {
    const store = new ConnectionStore(
      options.dataDir,
      options.engine,
      options.logger,
      options.now,
      options.uriTtlMs,
    );
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
    const signers = Object.entries(state.signers ?? {}).map(([key, secret]) => ({ key, secret }));
    for (const { key, secret: hex } of [...signers, ...Object.values(state.transports ?? {})]) {
      if (!isValidKeyName(key) || typeof hex !== 'string' || !HEX64.test(hex)) {
        this.#logger?.warn(`${NIP46_STATE_FILE}: skipping a remote-signer key of \`${String(key)}\``);
        continue;
      }
      const secret = hexToBytes(hex);
      const pubkey = this.#engine.getPublicKey(secret);
      this.#transports.set(pubkey, { key, secret, pubkey, pending: false });
    }
    for (const client of Array.isArray(state.clients) ? state.clients : []) {
      if (!isClient(client)) {
        this.#logger?.warn(`${NIP46_STATE_FILE}: skipping a client entry that does not check out`);
        continue;
      }
      this.#clients.set(clientId(client.key, client.pubkey), client);
    }
  }

  /**
   * A new connection URI's remote-signer key and one-time secret for `key`, offering `permissions`; it
   * works until it is used or expires (see {@link ConnectionStore.open}'s `uriTtlMs`).
   */
  offer(key: string, permissions: Nip46Permissions): { signer: string; secret: string; expires_at: number } {
    this.#prune();
    const secret = randomBytes(16).toString('hex');
    const transportSecret = this.#engine.generateSecretKey();
    const pubkey = this.#engine.getPublicKey(transportSecret);
    const now = this.#now();
    const offer: Offer = {
      key,
      signer: pubkey,
      kinds: [...permissions.kinds],
      nip44: permissions.nip44,
      nip04: permissions.nip04,
      created_at: Math.floor(now / 1000),
      expires_at: Math.floor((now + this.#uriTtlMs) / 1000),
      digest: digest(secret),
      transport: { key, secret: transportSecret, pubkey, pending: true },
    };
    this.#offers.set(pubkey, offer);
    return { signer: pubkey, secret, expires_at: offer.expires_at };
  }

  /** The unused URIs that have not expired, oldest first (never their secrets). */
  pending(): PendingUri[] {
    this.#prune();
    return [...this.#offers.values()].map(({ key, signer, kinds, nip44, nip04, created_at, expires_at }) => ({
      key,
      signer,
      kinds: [...kinds],
      nip44,
      nip04,
      created_at,
      expires_at,
    }));
  }

  /** Every remote-signer pubkey to listen on: the connections' and the unused URIs'. */
  signerPubkeys(): string[] {
    this.#prune();
    return [...this.#transports.keys(), ...this.#offers.keys()];
  }

  /** The remote-signer key with this pubkey (a connection's, or an unused URI's), or `undefined`. */
  transport(pubkey: string): Transport | undefined {
    const offer = this.#offers.get(pubkey);
    if (offer && offer.expires_at * 1000 <= this.#now()) {
      this.#drop(offer);
      return undefined;
    }
    return offer?.transport ?? this.#transports.get(pubkey);
  }

  /**
   * Use the secret of the unused URI whose remote-signer pubkey is `signer`: the first client to present it
   * gets its offer, and the URI's key becomes that connection's; a wrong or expired secret, or a URI used
   * already, is refused (its pubkey is then a connection's, and strangers there get no answer).
   *
   * @returns the key and the offered permissions.
   * @throws {BunkerError} `forbidden`.
   */
  redeem(signer: string, secret: string): { key: string; permissions: Nip46Permissions } {
    const offer = this.transport(signer)?.pending ? this.#offers.get(signer) : undefined;
    if (!offer || !tokensEqual(offer.digest, digest(secret))) {
      throw new BunkerError('forbidden', 'Unknown or expired connection secret');
    }
    this.#offers.delete(signer);
    this.#transports.set(signer, { ...offer.transport, pending: false });
    const { kinds, nip44, nip04 } = offer;
    return { key: offer.key, permissions: { kinds, nip44, nip04 } };
  }

  /** Forget expired URIs and wipe their keys. */
  #prune(): void {
    const now = this.#now();
    for (const offer of this.#offers.values()) if (offer.expires_at * 1000 <= now) this.#drop(offer);
  }

  #drop(offer: Offer): void {
    this.#offers.delete(offer.signer);
    offer.transport.secret.fill(0);
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
    signer?: string,
  ): Promise<Nip46Client> {
    const now = Math.floor(this.#now() / 1000);
    const client: Nip46Client = {
      pubkey,
      key,
      ...(name !== undefined && { name }),
      ...(signer !== undefined && { signer }),
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
    const client = this.#clients.get(clientId(key, pubkey));
    if (!client) {
      throw new BunkerError(
        'not_found',
        `No NIP-46 connection of \`${pubkey.slice(0, 64)}\` to key \`${key}\``,
      );
    }
    this.#clients.delete(clientId(key, pubkey));
    // Its remote-signer key goes too when no other client uses it: nothing is listened to there any more.
    const signer = client.signer;
    if (signer !== undefined && ![...this.#clients.values()].some((c) => c.signer === signer)) {
      this.#transports.get(signer)?.secret.fill(0);
      this.#transports.delete(signer);
    }
    this.#logger?.info(`NIP-46 client ${pubkey} of key \`${key}\` revoked`);
    await this.save();
  }

  /** Write the state file (durably, `0600`); writes are serialised. */
  save(): Promise<void> {
    const state: StateFile = {
      version: 1,
      transports: Object.fromEntries(
        [...this.#transports].map(([pubkey, t]) => [pubkey, { key: t.key, secret: bytesToHex(t.secret) }]),
      ),
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
    for (const transport of this.#transports.values()) transport.secret.fill(0);
    for (const offer of this.#offers.values()) this.#drop(offer);
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
    (c.name === undefined || typeof c.name === 'string') &&
    (c.signer === undefined || (typeof c.signer === 'string' && HEX64.test(c.signer)))
  );
}
