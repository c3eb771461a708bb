import { threadId, Worker } from 'node:worker_threads';
import type { EventTemplate } from 'nostr-tools/core';
import { BunkerError } from '../errors.js';
import type { KeyCipherMethod, KeyStore } from '../key-store.js';
import type { Logger } from '../logger.js';
import { DEFAULT_URI_TTL_MS, type Nip46Client, type PendingUri } from './connection-store.js';
import type { Nip46Permissions } from './permissions.js';
import type { Nip46Stats } from './remote-signer.js';
import { DEFAULT_STRANGER_BUDGET, type StrangerBudgetOptions } from './stranger-budget.js';
import {
  type FromWorker,
  type KeyCalls,
  type ToWorker,
  toWire,
  type WorkerCalls,
  type WorkerInit,
} from './worker-protocol.js';

/** What {@link Nip46Service.start} needs. */
export interface Nip46ServiceOptions {
  dataDir: string;
  /** Relays to listen on (checked with `parseRelays`). */
  relays: readonly string[];
  /** The keys: the worker asks for signatures, it never holds a key. */
  store: KeyStore;
  /** What a new connection may do unless the admin says otherwise. */
  defaults: Nip46Permissions;
  logger: Logger;
  /** What strangers may cost. Default: {@link DEFAULT_STRANGER_BUDGET}. */
  budget?: StrangerBudgetOptions;
  /** How long an unused connection URI works, ms. Default: 10 minutes. */
  uriTtlMs?: number;
}

/**
 * The NIP-46 side of a running bunker, seen from the HTTP thread: a worker thread does all NIP-46 work
 * (relay link, signature checks, ECDH, decryption, replies), so that no event from a relay — a stranger's
 * flood included — costs the HTTP API a millisecond. The keys stay here: the worker asks for each
 * signature (and NIP-44/NIP-04 operation) of an authorised client. The admin routes ask the worker for URIs,
 * connections and counters.
 */
export class Nip46Service {
  readonly relays: readonly string[];
  readonly defaults: Nip46Permissions;
  readonly #worker: Worker;
  readonly #store: KeyStore;
  readonly #logger: Logger;
  readonly #calls = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >();
  #nextCall = 0;
  #failure: Error | undefined;
  #closing: Promise<void> | undefined;

  private constructor(options: Nip46ServiceOptions, worker: Worker) {
    this.relays = [...options.relays];
    this.defaults = options.defaults;
    this.#worker = worker;
    this.#store = options.store;
    this.#logger = options.logger;
  }

  /**
   * Start the worker and wait until it has read its state (`{dataDir}/nip46.json`, `nip46-seen.log`).
   *
   * @throws when the worker cannot start, e.g. a state file that is no JSON.
   */
  static async start(options: Nip46ServiceOptions): Promise<Nip46Service> {
    const init: WorkerInit = {
      dataDir: options.dataDir,
      relays: [...options.relays],
      budget: options.budget ?? DEFAULT_STRANGER_BUDGET,
      uriTtlMs: options.uriTtlMs ?? DEFAULT_URI_TTL_MS,
    };
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: init });
    const service = new Nip46Service(options, worker);
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') resolve();
        else service.#receive(message);
      });
      worker.once('error', (error) => {
        service.#fail(error);
        reject(error);
      });
      worker.once('exit', (code) => {
        const error = new Error(`the NIP-46 worker stopped (exit code ${code})`);
        service.#fail(error);
        reject(error);
      });
    });
    return service;
  }

  /**
   * A new `bunker://` URI for a key: its own remote-signer key and a one-time secret offering `permissions`
   * (default: the bunker's defaults), until used or expired.
   *
   * @throws {BunkerError} `key_not_found`.
   */
  async connectionUri(key: string, permissions: Nip46Permissions = this.defaults): Promise<string> {
    return (await this.newUri(key, permissions)).uri;
  }

  /**
   * {@link Nip46Service.connectionUri}, with when it expires (Unix seconds).
   *
   * @throws {BunkerError} `key_not_found`.
   */
  async newUri(
    key: string,
    permissions: Nip46Permissions = this.defaults,
  ): Promise<{ uri: string; expires_at: number }> {
    this.#store.get(key);
    const offer = (await this.#call('offer', key, permissions)) as {
      signer: string;
      secret: string;
      expires_at: number;
    };
    const query = new URLSearchParams();
    for (const relay of this.relays) query.append('relay', relay);
    query.set('secret', offer.secret);
    return { uri: `bunker://${offer.signer}?${query.toString()}`, expires_at: offer.expires_at };
  }

  /** The authorised clients, by key then connection time. */
  connections(): Promise<Nip46Client[]> {
    return this.#call('connections') as Promise<Nip46Client[]>;
  }

  /** The unused URIs that have not expired (never their secrets). */
  pending(): Promise<PendingUri[]> {
    return this.#call('pending') as Promise<PendingUri[]>;
  }

  /** @throws {BunkerError} `not_found` when there is no such connection. */
  async revoke(key: string, pubkey: string): Promise<void> {
    await this.#call('revoke', key, pubkey);
  }

  /** The worker's counters, and the thread ids of the HTTP thread and the worker. */
  async stats(): Promise<Nip46Stats & { httpThreadId: number }> {
    return { ...((await this.#call('stats')) as Nip46Stats), httpThreadId: threadId };
  }

  /** Let the worker close its relays and save its state, then stop it. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (!this.#failure) await this.#call('close').catch(() => {});
      await this.#worker.terminate();
    })();
    return this.#closing;
  }

  #call<M extends keyof WorkerCalls>(method: M, ...args: WorkerCalls[M]): Promise<unknown> {
    if (this.#failure) return Promise.reject(new BunkerError('internal_error', 'NIP-46 is not running'));
    const id = this.#nextCall++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#worker.postMessage({ type: 'call', id, method, args } satisfies ToWorker);
    });
  }

  #receive(message: FromWorker): void {
    switch (message.type) {
      case 'log':
        this.#logger[message.level](message.message);
        return;
      case 'reply': {
        const call = this.#calls.get(message.id);
        this.#calls.delete(message.id);
        if (message.error) call?.reject(new BunkerError(message.error.code, message.error.message));
        else call?.resolve(message.result);
        return;
      }
      case 'key':
        this.#keyCall(message.method, message.args).then(
          (result) =>
            this.#worker.postMessage({ type: 'key-reply', id: message.id, result } satisfies ToWorker),
          (error: unknown) =>
            this.#worker.postMessage({
              type: 'key-reply',
              id: message.id,
              error: toWire(error),
            } satisfies ToWorker),
        );
        return;
      default:
    }
  }

  /** A key operation for an authorised NIP-46 client (the worker checked its permissions). */
  async #keyCall(method: keyof KeyCalls, args: unknown[]): Promise<unknown> {
    const store = this.#store;
    switch (method) {
      case 'pubkey':
        return store.get(String(args[0])).pubkey;
      case 'sign': {
        const [key, template, client] = args as KeyCalls['sign'];
        const [event] = await store.sign(key, [template as EventTemplate], { client });
        return event;
      }
      case 'cipher': {
        const [key, cipherMethod, peer, text] = args as KeyCalls['cipher'];
        return store.cipher(key, cipherMethod as KeyCipherMethod, peer, text);
      }
    }
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    if (!this.#closing) this.#logger.error(`NIP-46 is off: ${error.message}`);
    for (const call of this.#calls.values()) call.reject(error);
    this.#calls.clear();
  }
}
