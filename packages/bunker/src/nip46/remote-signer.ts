import type { SigningEngine } from '@siegel/core/crypto';
import type { NostrEvent } from 'nostr-tools/core';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { BunkerError } from '../errors.js';
import { parseEventTemplate } from '../event-template.js';
import type { KeyCipherMethod, KeyStore } from '../key-store.js';
import type { Logger } from '../logger.js';
import type { ConnectionStore, Nip46Client } from './connection-store.js';
import { grantPermissions, type Nip46Permissions } from './permissions.js';
import { RelayLink } from './relay-link.js';

/** NIP-46 requests and responses. */
export const NIP46_KIND = 24133;

/** Largest request content read (characters): a NIP-44 payload of the largest plaintext it allows. */
const MAX_CONTENT_CHARS = 200_000;

/** Requests older (or further ahead) than this are dropped: a replay, or a clock far off. */
const MAX_AGE_SECONDS = 600;

/** How many request ids are remembered to drop duplicates (the same request from several relays). */
const SEEN_LIMIT = 10_000;

interface Request {
  id: string;
  method: string;
  params: unknown[];
}

/** What {@link RemoteSigner} needs. */
export interface RemoteSignerOptions {
  /** Relays to listen on (checked with `parseRelays`). */
  relays: readonly string[];
  store: KeyStore;
  connections: ConnectionStore;
  engine: SigningEngine;
  /** What a new connection may do unless the admin says otherwise. */
  defaults: Nip46Permissions;
  logger: Logger;
}

/**
 * `siegel-bunker` as a NIP-46 remote signer: listens on relays for kind-24133 requests p-tagged to a key's
 * remote-signer pubkey, decrypts them (NIP-44 v2; NIP-04 for clients that still send it, answered the same
 * way), and answers `connect`, `ping`, `get_public_key`, `sign_event` and the encryption methods — for
 * authorised clients only, within their permissions.
 */
export class RemoteSigner {
  readonly relays: readonly string[];
  readonly defaults: Nip46Permissions;
  readonly #options: RemoteSignerOptions;
  readonly #links: RelayLink[];
  readonly #seen = new Set<string>();

  constructor(options: RemoteSignerOptions) {
    this.#options = options;
    this.relays = [...options.relays];
    this.defaults = options.defaults;
    this.#links = this.relays.map(
      (url) =>
        new RelayLink(url, {
          filter: () => ({ kinds: [NIP46_KIND], '#p': this.#options.connections.signerPubkeys() }),
          onEvent: (event) => {
            this.handle(event).catch((error: unknown) =>
              options.logger.warn(`NIP-46: request dropped: ${(error as Error).message}`),
            );
          },
          logger: options.logger,
        }),
    );
  }

  /** Connect to the relays. */
  start(): void {
    for (const link of this.#links) link.start();
  }

  /** The connections (clients) with their permissions. */
  get connections(): ConnectionStore {
    return this.#options.connections;
  }

  /**
   * A new `bunker://` URI for a key, with a one-time secret offering `permissions` (default: the
   * bunker's defaults).
   *
   * @throws {BunkerError} `key_not_found`.
   */
  async connectionUri(key: string, permissions: Nip46Permissions = this.defaults): Promise<string> {
    this.#options.store.get(key);
    const known = this.#options.connections.signerPubkeys().length;
    const pubkey = await this.#options.connections.signerPubkey(key);
    if (this.#options.connections.signerPubkeys().length !== known) {
      for (const link of this.#links) link.subscribe();
    }
    const secret = this.#options.connections.offer(key, permissions);
    const query = new URLSearchParams();
    for (const relay of this.relays) query.append('relay', relay);
    query.set('secret', secret);
    return `bunker://${pubkey}?${query.toString()}`;
  }

  /** Disconnect from the relays. */
  close(): void {
    for (const link of this.#links) link.close();
  }

  /**
   * Handle one event from a relay. Anything that is not a fresh, validly signed kind-24133 event to one
   * of our remote-signer keys, or does not decrypt to a request, is dropped (with a warning); a request
   * always gets an answer, an error one when refused.
   */
  async handle(value: unknown): Promise<void> {
    const event = this.#check(value);
    if (!event) return;
    const signer = this.#options.connections.signerByPubkey(event.p);
    if (!signer) return;
    const { request, encryption } = decryptRequest(event.event, signer.secret);
    let result: string;
    let error: string | undefined;
    try {
      result = await this.#dispatch(signer.key, event.event.pubkey, request);
    } catch (failure) {
      result = '';
      error = failure instanceof BunkerError ? failure.message : 'Internal error';
      if (!(failure instanceof BunkerError)) this.#options.logger.error(`NIP-46: ${String(failure)}`);
    }
    const body = JSON.stringify({ id: request.id, result, ...(error !== undefined && { error }) });
    const content =
      encryption === 'nip44'
        ? nip44.encrypt(body, nip44.getConversationKey(signer.secret, event.event.pubkey))
        : nip04.encrypt(signer.secret, event.event.pubkey, body);
    const reply = this.#options.engine.signEvent(
      {
        kind: NIP46_KIND,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['p', event.event.pubkey]],
        content,
      },
      signer.secret,
    );
    let sent = 0;
    for (const link of this.#links) if (link.publish(reply)) sent++;
    if (sent === 0) this.#options.logger.warn('NIP-46: no relay reachable for a reply');
  }

  /** The event as a fresh, signed request to one of our pubkeys, or `undefined` (dropped). */
  #check(value: unknown): { event: NostrEvent; p: string } | undefined {
    const event = value as NostrEvent;
    if (typeof event !== 'object' || event === null || event.kind !== NIP46_KIND) return undefined;
    if (typeof event.id !== 'string' || this.#seen.has(event.id)) return undefined;
    if (typeof event.content !== 'string' || event.content.length > MAX_CONTENT_CHARS) return undefined;
    if (!Number.isSafeInteger(event.created_at)) return undefined;
    if (Math.abs(Date.now() / 1000 - event.created_at) > MAX_AGE_SECONDS) return undefined;
    const p = Array.isArray(event.tags)
      ? event.tags.find((tag) => Array.isArray(tag) && tag[0] === 'p' && typeof tag[1] === 'string')?.[1]
      : undefined;
    if (p === undefined) return undefined;
    let valid = false;
    try {
      valid = this.#options.engine.verifyEvent(event);
    } catch {
      valid = false;
    }
    if (!valid) {
      this.#options.logger.warn('NIP-46: dropped a request with a bad signature');
      return undefined;
    }
    if (this.#seen.size >= SEEN_LIMIT) this.#seen.delete(this.#seen.values().next().value as string);
    this.#seen.add(event.id);
    return { event, p };
  }

  async #dispatch(key: string, clientPubkey: string, request: Request): Promise<string> {
    const { connections, store } = this.#options;
    if (request.method === 'connect') return this.#connect(key, clientPubkey, request.params);
    const client = connections.client(key, clientPubkey);
    if (!client) {
      throw new BunkerError(
        'forbidden',
        'Not authorised: this client has no connection to the key (never connected, or revoked); connect with a new bunker:// URI',
      );
    }
    connections.touch(client);
    switch (request.method) {
      case 'ping':
        return 'pong';
      case 'get_public_key':
        return store.get(key).pubkey;
      case 'sign_event':
        return JSON.stringify(await this.#sign(client, request.params));
      case 'nip44_encrypt':
      case 'nip44_decrypt':
      case 'nip04_encrypt':
      case 'nip04_decrypt':
        return this.#cipher(client, request.method, request.params);
      default:
        throw new BunkerError('invalid_request', `Unknown method \`${request.method.slice(0, 40)}\``);
    }
  }

  async #connect(key: string, clientPubkey: string, params: unknown[]): Promise<string> {
    const [target, secret, perms, metadata] = params;
    const signerPubkey = await this.#options.connections.signerPubkey(key);
    if (target !== signerPubkey) {
      throw new BunkerError(
        'invalid_request',
        '`connect` must name the remote-signer pubkey of the bunker:// URI',
      );
    }
    // An authorised client connecting again (a restart of the app) keeps what it has.
    if (this.#options.connections.client(key, clientPubkey)) return 'ack';
    if (typeof secret !== 'string' || secret === '') {
      throw new BunkerError('forbidden', 'A new client needs the secret of a bunker:// URI to connect');
    }
    const offer = this.#options.connections.redeem(key, secret, clientPubkey);
    const granted = grantPermissions(typeof perms === 'string' ? perms : undefined, offer);
    const client = await this.#options.connections.authorise(
      key,
      clientPubkey,
      granted,
      clientName(metadata),
    );
    this.#options.logger.info(
      `NIP-46 client ${clientPubkey} connected to key \`${key}\` (kinds ${client.kinds.join(', ') || 'none'})`,
    );
    return 'ack';
  }

  async #sign(client: Nip46Client, params: unknown[]): Promise<NostrEvent> {
    if (typeof params[0] !== 'string') {
      throw new BunkerError('invalid_request', '`sign_event` takes the event template as a JSON string');
    }
    let value: unknown;
    try {
      value = JSON.parse(params[0]);
    } catch {
      throw new BunkerError('invalid_request', '`sign_event`: the event template is not JSON');
    }
    const template = parseEventTemplate(value, 'event');
    if (!client.kinds.includes(template.kind)) {
      throw new BunkerError(
        'forbidden',
        `Kind \`${template.kind}\` is not allowed for this client (allowed: ${client.kinds.join(', ') || 'none'})`,
      );
    }
    const [event] = await this.#options.store.sign(client.key, [template], { client: client.pubkey });
    return event as NostrEvent;
  }

  #cipher(client: Nip46Client, method: KeyCipherMethod, params: unknown[]): string {
    const allowed = method.startsWith('nip44_') ? client.nip44 : client.nip04;
    if (!allowed) throw new BunkerError('forbidden', `\`${method}\` is not allowed for this client`);
    const [peer, text] = params;
    if (typeof peer !== 'string' || typeof text !== 'string') {
      throw new BunkerError('invalid_request', `\`${method}\` takes a pubkey and a text`);
    }
    return this.#options.store.cipher(client.key, method, peer, text);
  }
}

/**
 * Decrypt a request's content (NIP-44 v2, or NIP-04 when it has NIP-04's `?iv=`) and read it.
 *
 * @throws {Error} when it does not decrypt or is no `{ id, method, params }` request.
 */
function decryptRequest(
  event: NostrEvent,
  secret: Uint8Array,
): { request: Request; encryption: 'nip44' | 'nip04' } {
  const encryption = event.content.includes('?iv=') ? 'nip04' : 'nip44';
  let text: string;
  try {
    text =
      encryption === 'nip44'
        ? nip44.decrypt(event.content, nip44.getConversationKey(secret, event.pubkey))
        : nip04.decrypt(secret, event.pubkey, event.content);
  } catch (cause) {
    throw new Error(`a kind-24133 event from ${event.pubkey} does not decrypt (${encryption})`, { cause });
  }
  let value: Partial<Request>;
  try {
    value = JSON.parse(text) as Partial<Request>;
  } catch (cause) {
    throw new Error(`a kind-24133 event from ${event.pubkey} holds no JSON request`, { cause });
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.id !== 'string' ||
    typeof value.method !== 'string' ||
    !Array.isArray(value.params)
  ) {
    throw new Error(`a kind-24133 event from ${event.pubkey} holds no { id, method, params } request`);
  }
  return { request: value as Request, encryption };
}

/** The `name` of the client metadata `connect` may carry (a JSON string), cut to 100 characters. */
function clientName(metadata: unknown): string | undefined {
  if (typeof metadata !== 'string') return undefined;
  try {
    const name = (JSON.parse(metadata) as { name?: unknown }).name;
    return typeof name === 'string' && name.trim() ? name.trim().slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}
