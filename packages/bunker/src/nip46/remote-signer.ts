import { threadId } from 'node:worker_threads';
import type { SigningEngine } from '@siegel/core/crypto';
import { isEventShape } from '@siegel/core/crypto';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { BunkerError } from '../errors.js';
import { parseEventTemplate } from '../event-template.js';
import type { KeyCipherMethod } from '../key-store.js';
import type { Logger } from '../logger.js';
import type { ConnectionStore, Nip46Client, Transport } from './connection-store.js';
import type { DropLog, DropReason } from './drop-log.js';
import { grantPermissions, type Nip46Permissions } from './permissions.js';
import type { ReplayGuard } from './replay-guard.js';
import type { StrangerBudget, StrangerBudgetOptions } from './stranger-budget.js';

/** NIP-46 requests and responses. */
export const NIP46_KIND = 24133;

/** Largest request content read (characters): a NIP-44 payload of the largest plaintext it allows. */
const MAX_CONTENT_CHARS = 200_000;

/** Conversation keys kept for known clients (an ECDH each), at most. */
const MAX_CONVERSATION_KEYS = 1000;

/** Thrown for a stranger's request that gets no answer at all. */
class Unanswered extends Error {}

interface Request {
  id: string;
  method: string;
  params: unknown[];
}

/** What the remote signer asks of the keys, which live on the HTTP thread (the worker never holds one). */
export interface KeyAccess {
  /** The key's own pubkey. @throws {BunkerError} `key_not_found`. */
  pubkey(key: string): Promise<string>;
  /** Sign one template for a NIP-46 client (audited). @throws {BunkerError} `key_locked`, … */
  sign(key: string, template: EventTemplate, client: string): Promise<NostrEvent>;
  /** NIP-44 / NIP-04 with the key. @throws {BunkerError} `key_locked`, `invalid_request`, … */
  cipher(key: string, method: KeyCipherMethod, peer: string, text: string): Promise<string>;
}

/** What the remote signer has done since it started: what a flood cost, for the stats route and tests. */
export interface Nip46Stats {
  /** The thread the NIP-46 work runs on (`0` would be the HTTP thread). */
  threadId: number;
  /** Events received from the relays, each delivery counted. */
  received: number;
  /** Signature checks: of known clients' events, and of strangers' (within the budget). */
  signatureChecks: { clients: number; strangers: number };
  /** ECDH + decryptions: of known clients' events, and of strangers' (within the budget). */
  decryptions: { clients: number; strangers: number };
  /** Replies sent: to known clients, and to strangers (only a `connect` with a valid secret). */
  replies: { clients: number; strangers: number };
  /** Dropped events by reason. */
  dropped: Record<DropReason, number>;
  budget: StrangerBudgetOptions;
}

/** What {@link RemoteSigner} needs. */
export interface RemoteSignerOptions {
  keys: KeyAccess;
  connections: ConnectionStore;
  engine: SigningEngine;
  budget: StrangerBudget;
  replays: ReplayGuard;
  drops: DropLog;
  /** Send a reply to the relays; resolves with how many took it. */
  publish: (event: NostrEvent) => Promise<number>;
  /** Called when a URI is used: its remote-signer key is now a connection's. */
  onConnectionsChanged?: () => void;
  logger: Logger;
}

/**
 * `siegel-bunker` as a NIP-46 remote signer (it runs in a worker thread; see `nip46-service.ts`): it takes
 * kind-24133 events p-tagged to one of its remote-signer keys, and answers `connect`, `ping`,
 * `get_public_key`, `sign_event` and the encryption methods — for authorised clients only, within their
 * permissions. NIP-44 v2; NIP-04 for clients that still send it, answered the same way.
 *
 * What a stranger (an author that is no authorised client of the addressed key) may cost is bounded: at a
 * connection's remote-signer key it can never be answered, so its event is dropped unread; at an unused
 * URI's key (only whoever has the URI knows it) its signature is checked and its content decrypted only
 * within the {@link StrangerBudget}. It gets no answer at all unless it is a `connect` with the URI's valid,
 * unexpired secret.
 */
export class RemoteSigner {
  readonly #options: RemoteSignerOptions;
  readonly #conversations = new Map<string, Uint8Array>();
  readonly #stats: Nip46Stats;

  constructor(options: RemoteSignerOptions) {
    this.#options = options;
    this.#stats = {
      threadId,
      received: 0,
      signatureChecks: { clients: 0, strangers: 0 },
      decryptions: { clients: 0, strangers: 0 },
      replies: { clients: 0, strangers: 0 },
      dropped: {
        malformed: 0,
        stale: 0,
        duplicate: 0,
        stranger: 0,
        overBudget: 0,
        badSignature: 0,
        undecryptable: 0,
        unanswered: 0,
      },
      budget: options.budget.options,
    };
  }

  /** A copy of the counters. */
  stats(): Nip46Stats {
    return structuredClone(this.#stats);
  }

  /**
   * Handle one event from a relay: dropped (counted, summarised in the log) unless it is a fresh, validly
   * signed request that may be answered; then answered, with an error when refused.
   */
  async handle(value: unknown): Promise<void> {
    this.#stats.received++;
    const checked = this.#check(value);
    if (typeof checked === 'string') return this.#drop(checked);
    const { event, transport, client } = checked;
    const role = client || !transport.pending ? 'clients' : 'strangers';
    this.#stats.signatureChecks[role]++;
    if (!this.#verify(event)) return this.#drop('badSignature');
    this.#stats.decryptions[role]++;
    const conversation = this.#conversationKey(transport, event.pubkey, client !== undefined);
    const decrypted = decryptRequest(event, transport.secret, conversation);
    if (!decrypted) return this.#drop('undecryptable');
    const { request, encryption } = decrypted;
    await this.#options.replays.remember(event.id, event.created_at);

    let result: string;
    let error: string | undefined;
    try {
      result = await this.#dispatch(transport, event.pubkey, client, request);
    } catch (failure) {
      // A stranger is answered only when its `connect` holds the URI's valid secret.
      if (failure instanceof Unanswered) return this.#drop('unanswered');
      result = '';
      error = failure instanceof BunkerError ? failure.message : 'Internal error';
      if (!(failure instanceof BunkerError)) this.#options.logger.error(`NIP-46: ${String(failure)}`);
    }
    const body = JSON.stringify({ id: request.id, result, ...(error !== undefined && { error }) });
    const content =
      encryption === 'nip44'
        ? nip44.encrypt(body, conversation())
        : nip04.encrypt(transport.secret, event.pubkey, body);
    const reply = this.#options.engine.signEvent(
      { kind: NIP46_KIND, created_at: Math.floor(Date.now() / 1000), tags: [['p', event.pubkey]], content },
      transport.secret,
    );
    this.#stats.replies[client ? 'clients' : 'strangers']++;
    const sent = await this.#options.publish(reply);
    if (sent === 0) this.#options.logger.warn('NIP-46: no relay took a reply');
  }

  #drop(reason: DropReason): void {
    this.#stats.dropped[reason]++;
    this.#options.drops.count(reason);
  }

  /**
   * The cheap checks, before any signature or ECDH: the shape, the date, an id not handled yet, a `p` tag
   * naming one of our remote-signer keys, and — for a stranger — an unused URI's key and the budget.
   */
  #check(
    value: unknown,
  ): { event: NostrEvent; transport: Transport; client: Nip46Client | undefined } | DropReason {
    // Core's one guard for events from outside, then what NIP-46 asks of a request.
    if (!isEventShape(value) || value.kind !== NIP46_KIND || value.content.length > MAX_CONTENT_CHARS)
      return 'malformed';
    const event = value;
    if (!this.#options.replays.fresh(event.created_at)) return 'stale';
    if (this.#options.replays.seen(event.id)) return 'duplicate';
    const p = event.tags.find((tag) => tag[0] === 'p')?.[1];
    const transport = typeof p === 'string' ? this.#options.connections.transport(p) : undefined;
    if (!transport) return 'malformed';
    const client = this.#options.connections.client(transport.key, event.pubkey);
    if (!client) {
      if (!transport.pending) return 'stranger';
      if (!this.#options.budget.take(event.pubkey, transport.pubkey)) return 'overBudget';
    }
    return { event, transport, client };
  }

  #verify(event: NostrEvent): boolean {
    try {
      return this.#options.engine.verifyEvent(event);
    } catch {
      return false;
    }
  }

  /** The NIP-44 conversation key with `peer` (made when first needed; kept for known clients). */
  #conversationKey(transport: Transport, peer: string, keep: boolean): () => Uint8Array {
    const id = `${transport.pubkey}${peer}`;
    let key = this.#conversations.get(id);
    return () => {
      if (key) return key;
      key = nip44.getConversationKey(transport.secret, peer);
      if (keep) {
        if (this.#conversations.size >= MAX_CONVERSATION_KEYS) {
          this.#conversations.delete(this.#conversations.keys().next().value as string);
        }
        this.#conversations.set(id, key);
      }
      return key;
    };
  }

  async #dispatch(
    transport: Transport,
    clientPubkey: string,
    client: Nip46Client | undefined,
    request: Request,
  ): Promise<string> {
    if (request.method === 'connect') return this.#connect(transport, clientPubkey, client, request.params);
    // Strangers get no further, and no answer.
    if (!client) throw new Unanswered();
    this.#options.connections.touch(client);
    switch (request.method) {
      case 'ping':
        return 'pong';
      case 'get_public_key':
        return this.#options.keys.pubkey(client.key);
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

  async #connect(
    transport: Transport,
    clientPubkey: string,
    client: Nip46Client | undefined,
    params: unknown[],
  ): Promise<string> {
    const [target, secret, perms, metadata] = params;
    if (target !== transport.pubkey) {
      if (!client) throw new Unanswered();
      throw new BunkerError(
        'invalid_request',
        '`connect` must name the remote-signer pubkey of the bunker:// URI',
      );
    }
    // An authorised client connecting again (a restart of the app) keeps what it has.
    if (client && !transport.pending) return 'ack';
    let offer: { key: string; permissions: Nip46Permissions };
    try {
      offer = this.#options.connections.redeem(transport.pubkey, typeof secret === 'string' ? secret : '');
    } catch (error) {
      // A stranger with a wrong secret learns nothing, not even that the bunker is there.
      if (!client) throw new Unanswered();
      throw error;
    }
    const granted = grantPermissions(typeof perms === 'string' ? perms : undefined, offer.permissions);
    const authorised = await this.#options.connections.authorise(
      offer.key,
      clientPubkey,
      granted,
      clientName(metadata),
      transport.pubkey,
    );
    this.#options.onConnectionsChanged?.();
    this.#options.logger.info(
      `NIP-46 client ${clientPubkey} connected to key \`${offer.key}\` (kinds ${authorised.kinds.join(', ') || 'none'})`,
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
    return this.#options.keys.sign(client.key, template, client.pubkey);
  }

  #cipher(client: Nip46Client, method: KeyCipherMethod, params: unknown[]): Promise<string> {
    const allowed = method.startsWith('nip44_') ? client.nip44 : client.nip04;
    if (!allowed) throw new BunkerError('forbidden', `\`${method}\` is not allowed for this client`);
    const [peer, text] = params;
    if (typeof peer !== 'string' || typeof text !== 'string') {
      throw new BunkerError('invalid_request', `\`${method}\` takes a pubkey and a text`);
    }
    return this.#options.keys.cipher(client.key, method, peer, text);
  }
}

/**
 * Decrypt a request's content (NIP-44 v2, or NIP-04 when it has NIP-04's `?iv=`) and read it; `undefined`
 * when it does not decrypt or is no `{ id, method, params }` request.
 */
function decryptRequest(
  event: NostrEvent,
  secret: Uint8Array,
  conversation: () => Uint8Array,
): { request: Request; encryption: 'nip44' | 'nip04' } | undefined {
  const encryption = event.content.includes('?iv=') ? 'nip04' : 'nip44';
  let value: Partial<Request>;
  try {
    const text =
      encryption === 'nip44'
        ? nip44.decrypt(event.content, conversation())
        : nip04.decrypt(secret, event.pubkey, event.content);
    value = JSON.parse(text) as Partial<Request>;
  } catch {
    return undefined;
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.id !== 'string' ||
    typeof value.method !== 'string' ||
    !Array.isArray(value.params)
  ) {
    return undefined;
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
