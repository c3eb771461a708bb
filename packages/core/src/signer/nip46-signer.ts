import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { BunkerSigner } from 'nostr-tools/nip46';
import { getPublicKey } from 'nostr-tools/pure';
import { normalizeURL } from 'nostr-tools/utils';
import PQueue from 'p-queue';
import { createGermanError, SiegelError } from '../errors.js';
import { computeEventId, HEX64, jsEngine, loadSigningEngine, type SigningEngine } from '../nostr/crypto.js';
import { MAX_NIP46_MESSAGE_BYTES } from '../nostr/relay-socket.js';
import { parseRelays } from '../nostr/relays.js';
import type { Signer } from '../nostr/signer.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import { DEFAULTS, positiveIntegerOption, type SiegelLogger } from '../options/options.js';
import { createPageEvent } from '../page/page-event.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import { type Nip46ClientKey, readNip46ClientKey, writeNip46ClientKey } from './nip46-client-key.js';
import { Nip46Pool } from './nip46-pool.js';

/** A `bunker://` URI, parsed: the remote signer's pubkey, its relays, the one-time secret. */
export interface BunkerUri {
  /** Hex pubkey of the remote signer (the URI's host): whom requests are encrypted to. */
  remotePubkey: string;
  relays: string[];
  secret: string | undefined;
  /** The URI without its secret, for messages. */
  display: string;
}

/**
 * Parse a `bunker://<remote-signer-pubkey>?relay=wss://…&secret=…` URI (NIP-46). Relays follow the one rule
 * of `parseRelays`: `wss://`, or `ws://` on loopback.
 *
 * @example
 * ```ts
 * parseBunkerUri(`bunker://${pubkey}?relay=wss%3A%2F%2Frelay.example.com&secret=s3`).relays // ['wss://relay.example.com']
 * ```
 * @throws {SiegelError} `invalid_options` quoting the URI (its secret left out).
 */
export function parseBunkerUri(uri: string, source = 'BUNKER_URL'): BunkerUri {
  let url: URL | undefined;
  try {
    url = new URL(uri.trim());
  } catch {}
  const secret = url?.searchParams.get('secret') ?? undefined;
  const display = uri.trim().replace(/([?&]secret=)[^&]*/, '$1…');
  if (url?.protocol !== 'bunker:')
    throw new SiegelError('invalid_options', `${source} \`${display}\` is not a bunker:// URI`);
  const remotePubkey = url.hostname.toLowerCase();
  if (!HEX64.test(remotePubkey)) {
    throw new SiegelError(
      'invalid_options',
      `${source} \`${display}\` must name the remote signer by its hex pubkey: bunker://<64 hex characters>?relay=wss://…`,
    );
  }
  const relays = parseRelays(url.searchParams.getAll('relay'), source);
  if (relays.length === 0)
    throw new SiegelError('invalid_options', `${source} \`${display}\` names no relay (\`?relay=wss://…\`)`);
  return { remotePubkey, relays, secret: secret || undefined, display };
}

/** Options of {@link Nip46Signer}. */
export interface Nip46SignerOptions {
  /** The remote signer's `bunker://` URI (`BUNKER_URL`). */
  uri: string;
  /** Where the client key is kept (default `.siegel-nip46-client.json` in the current directory). */
  clientKeyFile?: string;
  /** Progress and approval requests go here (default: nowhere). */
  logger?: SiegelLogger;
  /** Requests in flight at once (default 16): NIP-46 signs one event per request. */
  window?: number;
  /** Timeout of one request, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Timeout of the first `connect`, which may wait for a person to approve (default 120 000). */
  connectTimeoutMs?: number;
  /** Log a progress line every this many signed events (default 100). */
  progressEvery?: number;
}

/**
 * Signs through any NIP-46 remote signer (nsec.app, Amber, nsecBunker, `siegel-bunker`) over Nostr relays,
 * with nostr-tools' `BunkerSigner`. A client keypair is made once and kept in `clientKeyFile` (mode 0600):
 * the URI's secret is sent with the first `connect` only, later runs reuse the key and the public key the
 * signer gave, so the signer asks for approval once and a run with nothing to sign sends no request.
 * Requests are pipelined (`window` in flight); every event that comes back is checked (same template, its
 * id and Schnorr signature, the signer's pubkey). Relays are reached over `ws` with 512 KiB per message
 * (nip46-pool.ts): a larger message, or a reply that is not NIP-44 encrypted (NIP-04, say), ends every
 * waiting request with a `bunker_error` naming the signer.
 *
 * @example
 * ```ts
 * const signer = new Nip46Signer({ uri: process.env.BUNKER_URL!, clientKeyFile: '.siegel-nip46-client.json' });
 * await signer.check();
 * const events = await signer.signEvents(templates);
 * await signer.close();
 * ```
 * @throws {SiegelError} `invalid_options` (a bad URI), `key_locked` (`Key ist gesperrt`: the signer refused
 * `connect` or a signature), `bunker_unreachable` (no relay reachable, or no answer in time), `bunker_error`
 * (a bad answer, an unreadable reply, a relay message over 512 KiB).
 */
export class Nip46Signer implements Signer {
  readonly uri: BunkerUri;
  readonly clientKeyFile: string;
  readonly #logger: SiegelLogger | undefined;
  readonly #window: number;
  readonly #timeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #progressEvery: number;
  #key: Nip46ClientKey | undefined;
  #pubkey: string | undefined;
  #client: { bunker: BunkerSigner; pool: Nip46Pool } | undefined;
  #engine: SigningEngine | undefined;
  /** At most `window` requests in flight, across every `signEvents` call. */
  readonly #slots: PQueue;
  #signed = 0;
  #requests = 0;
  /** Requests waiting for an answer: {@link close} ends them (their timers would keep the process alive). */
  readonly #pending = new Set<{ timer: NodeJS.Timeout; reject: (error: SiegelError) => void }>();

  constructor(options: Nip46SignerOptions) {
    this.uri = parseBunkerUri(options.uri);
    this.clientKeyFile = options.clientKeyFile ?? DEFAULTS.nip46ClientKeyFile;
    this.#logger = options.logger;
    this.#window = positiveIntegerOption(options.window, DEFAULTS.nip46Window, 'window');
    this.#timeoutMs = positiveIntegerOption(options.timeoutMs, DEFAULTS.timeoutMs, 'timeoutMs');
    this.#connectTimeoutMs = positiveIntegerOption(
      options.connectTimeoutMs,
      DEFAULTS.nip46ConnectTimeoutMs,
      'connectTimeoutMs',
    );
    this.#progressEvery = positiveIntegerOption(options.progressEvery, 100, 'progressEvery');
    this.#slots = new PQueue({ concurrency: this.#window });
  }

  /** Requests sent to the remote signer so far (`connect`, `get_public_key`, one per signed event). */
  get requests(): number {
    return this.#requests;
  }

  /**
   * Make sure the remote signer accepts this client and learn the key it signs as: from the client key
   * file when it accepted this client before (no request), else `connect` with the URI's secret and
   * `get_public_key`, then remember both.
   */
  async check(): Promise<void> {
    await this.getPublicKey();
  }

  async getPublicKey(): Promise<string> {
    if (this.#pubkey) return this.#pubkey;
    const { key, isNew } = await readNip46ClientKey(this.clientKeyFile);
    this.#key = key;
    const session = key.sessions[this.uri.remotePubkey];
    if (session) {
      this.#pubkey = session.userPubkey;
      return session.userPubkey;
    }
    // Kept before the first connect: a signer that waits for a person's approval approves this key, even
    // if this run gives up waiting.
    if (isNew) await writeNip46ClientKey(key);
    this.#engine ??= await loadSigningEngine();
    await this.#request(
      'connect',
      (bunker) => bunker.sendRequest('connect', [this.uri.remotePubkey, this.uri.secret ?? '']),
      this.#connectTimeoutMs,
    );
    const pubkey = await this.#request('get_public_key', (bunker) => bunker.getPublicKey(), this.#timeoutMs);
    if (!HEX64.test(pubkey)) throw this.#badAnswer(`get_public_key gave \`${pubkey.slice(0, 80)}\``);
    key.sessions[this.uri.remotePubkey] = {
      userPubkey: pubkey,
      relays: this.uri.relays,
      connectedAt: Math.floor(Date.now() / 1000),
    };
    await writeNip46ClientKey(key);
    this.#pubkey = pubkey;
    this.#logger?.info(
      `Siegel: connected to the NIP-46 signer \`${this.uri.remotePubkey}\`; it signs as \`${pubkey}\`.`,
    );
    return pubkey;
  }

  /**
   * Sign one throwaway page event (never written or published), unless this signer signed already: a
   * remote signer answers `connect` and `get_public_key` with a locked key too, so only a signature shows
   * that the run can sign (see `Signer.probe`).
   */
  async probe(): Promise<void> {
    if (this.#signed > 0) return;
    await this.signEvents([
      createPageEvent({
        hash: '0'.repeat(64),
        url: 'urn:siegel:probe',
        title: 'Siegel: a probe that the key signs now; never published',
      }),
    ]);
  }

  async signEvents(templates: EventTemplate[]): Promise<NostrEvent[]> {
    await this.getPublicKey();
    this.#engine ??= await loadSigningEngine();
    // After the first failure the rest of this batch is not sent: the run stops anyway.
    let failure: unknown;
    return Promise.all(
      templates.map((template) =>
        this.#slots
          .add(async () => {
            if (failure !== undefined) throw failure;
            const answer = await this.#request(
              'sign_event',
              (bunker) => bunker.sendRequest('sign_event', [JSON.stringify(template)]),
              this.#timeoutMs,
            );
            const event = this.#parseEvent(answer);
            this.#signed++;
            if (this.#signed % this.#progressEvery === 0)
              this.#logger?.info(`Siegel: ${this.#signed} events signed through NIP-46.`);
            return event;
          })
          .catch((error: unknown) => {
            failure ??= error;
            throw error;
          }),
      ),
    );
  }

  /** Close the relay connections and end the requests still waiting (a new request opens them again). */
  async close(): Promise<void> {
    this.#failPending(new SiegelError('bunker_error', 'the NIP-46 signer was closed before it answered'));
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    await client.bunker.close();
    client.pool.destroy();
  }

  /** The signer's answer as JSON; whether it is the template, signed, the signing run checks (`checkSignedEvents`). */
  #parseEvent(answer: string): NostrEvent {
    try {
      return JSON.parse(answer) as NostrEvent;
    } catch {
      throw this.#badAnswer(`sign_event gave no event: \`${answer.slice(0, 80)}\``);
    }
  }

  #open(): BunkerSigner {
    if (this.#client) return this.#client.bunker;
    const key = this.#key as Nip46ClientKey;
    // The answers' signatures are checked with the run's engine (WebAssembly), not nostr-tools' pure JS:
    // a relay round trip per event makes that check a visible share of the client's time.
    const engine = this.#engine ?? jsEngine;
    const pool = new Nip46Pool({
      verifyEvent: (event) => event.id === computeEventId(event) && verifyEventSignature(engine, event),
      onBadReply: (event) => this.#failPending(this.#unreadableReply(event)),
      onTooLarge: (relay) => this.#failPending(this.#tooLarge(relay)),
      publishTimeoutMs: this.#timeoutMs,
    });
    const bunker = BunkerSigner.fromBunker(
      Buffer.from(key.secretKey, 'hex'),
      { pubkey: this.uri.remotePubkey, relays: this.uri.relays, secret: this.uri.secret ?? null },
      {
        pool,
        onauth: (url) =>
          this.#logger?.warn(
            `Siegel: the NIP-46 signer asks for approval: open \`${toTerminalSafe(url, { singleLine: true })}\` and approve.`,
          ),
      },
    );
    this.#client = { bunker, pool };
    return bunker;
  }

  /** One request with a timeout; the signer's refusals and the relays' failures as clear errors. */
  async #request(
    method: string,
    send: (bunker: BunkerSigner) => Promise<string>,
    timeoutMs: number,
  ): Promise<string> {
    const bunker = this.#open();
    this.#requests++;
    let pending: { timer: NodeJS.Timeout; reject: (error: SiegelError) => void } | undefined;
    const stop = new Promise<never>((_, reject) => {
      pending = {
        timer: setTimeout(() => reject(this.#timeoutError(method, timeoutMs)), timeoutMs),
        reject,
      };
      this.#pending.add(pending);
    });
    try {
      return await Promise.race([send(bunker), stop]);
    } catch (error) {
      if (error instanceof SiegelError) throw error;
      if (error instanceof AggregateError) throw this.#unreachableError(error);
      throw this.#refusedError(method, error);
    } finally {
      if (pending) {
        clearTimeout(pending.timer);
        this.#pending.delete(pending);
      }
    }
  }

  #refusedError(method: string, error: unknown): SiegelError {
    const reason = toTerminalSafe(error instanceof Error ? error.message : String(error), {
      singleLine: true,
    }).slice(0, 200);
    const connected = this.#key?.sessions[this.uri.remotePubkey] !== undefined;
    const what = method === 'connect' ? 'refused to connect this client' : `refused \`${method}\``;
    // The client is fine when the key behind the signer is locked: the key needs unlocking, not the client.
    const hint = /\blocked\b|gesperrt/i.test(reason)
      ? 'the key behind the signer is locked: unlock it in the signer (siegel-bunker: its /admin page) and run again'
      : connected
        ? `allow this client in the signer again, or delete \`${this.clientKeyFile}\` and use a fresh bunker:// URI with a secret`
        : 'check the secret of the bunker:// URI and approve this client in the signer';
    return createGermanError(
      'key_locked',
      `The NIP-46 signer \`${this.uri.remotePubkey}\` ${what}: \`${reason}\`. Client key \`${this.#clientPubkey()}\`: ${hint}.`,
      { cause: error },
    );
  }

  #unreachableError(error: AggregateError): SiegelError {
    const reasons = error.errors.map((reason) => String(reason instanceof Error ? reason.message : reason));
    return new SiegelError(
      'bunker_unreachable',
      `No relay of the NIP-46 signer is reachable: ${this.uri.relays.map((relay, i) => `\`${relay}\` (${reasons[i] ?? 'failed'})`).join(', ')}. Is the relay up?\nBUNKER_URL is \`${this.uri.display}\`.`,
      { cause: error },
    );
  }

  #timeoutError(method: string, timeoutMs: number): SiegelError {
    return new SiegelError(
      'bunker_unreachable',
      `The NIP-46 signer \`${this.uri.remotePubkey}\` did not answer \`${method}\` within ${timeoutMs} ms on ${this.uri.relays.map((relay) => `\`${relay}\``).join(', ')}. Is it running and on these relays?`,
    );
  }

  /** End every request waiting for an answer with `error`. */
  #failPending(error: SiegelError): void {
    for (const pending of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }

  /**
   * A reply BunkerSigner could not read. It is the signer's (its key signed it, the pool checked that), so
   * every request would get the same: the run ends with the reason rather than waiting out its timeouts.
   */
  #unreadableReply(event: NostrEvent): SiegelError {
    // NIP-04 ciphertext is `base64?iv=base64`; NIP-44 is one base64 payload.
    const what = event.content.includes('?iv=')
      ? 'a NIP-04 encrypted reply; Siegel speaks NIP-46 with NIP-44 encryption only — update the signer or use one that speaks NIP-44'
      : 'a reply that is not a NIP-44 encrypted NIP-46 message';
    return new SiegelError('bunker_error', `The NIP-46 signer \`${this.uri.remotePubkey}\` sent ${what}.`);
  }

  #tooLarge(socketUrl: string): SiegelError {
    // The socket knows the relay by nostr-tools' spelling of it; the message uses the URI's.
    const relay = this.uri.relays.find((url) => normalizeURL(url) === socketUrl) ?? socketUrl;
    return new SiegelError(
      'bunker_error',
      `The NIP-46 signer \`${this.uri.remotePubkey}\`: relay \`${relay}\` sent a message larger than ${MAX_NIP46_MESSAGE_BYTES / 1024} KiB, more than any NIP-46 reply; the connection was closed (1009).`,
    );
  }

  #badAnswer(detail: string): SiegelError {
    return new SiegelError(
      'bunker_error',
      `The NIP-46 signer \`${this.uri.remotePubkey}\` gave a bad answer: ${detail}`,
    );
  }

  #clientPubkey(): string {
    return this.#key ? getPublicKey(Buffer.from(this.#key.secretKey, 'hex')) : '?';
  }
}
