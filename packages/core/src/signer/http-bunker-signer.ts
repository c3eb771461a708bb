// The signer of a Siegel bunker's HTTP API (createSigner's default): what to ask the bunker — batches, the
// one-event route of older bunkers, probes to learn the key or whether a refusal is the event's — and what
// its answers mean for the run. Carrying a request there and back is bunker-http.ts; turning a refusal into
// Siegel's errors is bunker-errors.ts.
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import PQueue from 'p-queue';
import { createGermanError, SiegelError } from '../errors.js';
import { HEX64, loadSigningEngine } from '../nostr/crypto.js';
import type { Signer } from '../nostr/signer.js';
import type { ValueSource } from '../options/env.js';
import { DEFAULTS, positiveIntegerOption } from '../options/options.js';
import {
  badAnswerError,
  bunkerErrorCode,
  bunkerErrorMessage,
  bunkerStatusError,
  keyLockedError,
  keyNotFoundError,
} from './bunker-errors.js';
import { type BunkerConnection, type BunkerResponse, requestBunker } from './bunker-http.js';
import { checkSignedEvent } from './check-events.js';

/** Options of {@link HttpBunkerSigner}; every field optional. */
export interface HttpBunkerSignerOptions {
  /** Bunker base address (default `http://localhost:7777`). */
  url?: string;
  /**
   * Where `url` came from, named when the bunker cannot be reached (default: the `url` option when `url` is
   * given, else the default). `createSigner` passes where `BUNKER_URL` was read from.
   */
  urlSource?: ValueSource;
  /** Bearer token, `BUNKER_API_TOKEN` (required; missing → `BUNKER_API_TOKEN nicht gesetzt`). */
  apiToken?: string;
  /** Name of the key to sign with (default `default`). */
  keyName?: string;
  /** `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Templates per batch request (default 500; halved automatically when the bunker answers 413). */
  batchSize?: number;
  /** Timeout of one HTTP request in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Extra attempts for transient failures: network errors, timeouts, 5xx, 429 (default 2). */
  retries?: number;
  /** First backoff delay in milliseconds, doubled per attempt (default 200). */
  retryDelayMs?: number;
  /** Parallel single-event requests when falling back to `POST /api/sign` (default 4). */
  compatConcurrency?: number;
}

/**
 * Signs through a Siegel bunker over its HTTP API v1: batches go to `POST /api/keys/{name}/sign`; bunkers
 * without that route (existing deployments) are used through `POST /api/sign`, one event per request.
 * The signing run checks every event that comes back (`checkSignedEvents`: same template, id, pubkey,
 * signatures by sample), as it does for every signer.
 *
 * @example
 * ```ts
 * const signer = new HttpBunkerSigner({ url: 'http://localhost:7777', apiToken: token });
 * await signer.check();
 * const [event] = await signer.signEvents([template]);
 * ```
 * @throws {SiegelError} `token_missing`, `token_rejected`, `key_not_found`, `key_locked` (German first line),
 * `bunker_unreachable` (network error or timeout), `bunker_error` (5xx after retries, bad answers).
 */
export class HttpBunkerSigner implements Signer {
  readonly url: string;
  readonly keyName: string;
  readonly #connection: BunkerConnection;
  readonly #compatConcurrency: number;
  #batchSize: number;
  #pubkey: string | undefined;
  /**
   * The bunker has signed for this signer (a batch, or the probe of {@link #signsOthers}): from then on a
   * refusal or a server error for some events is theirs, not the bunker's.
   */
  #hasSigned = false;
  /** `batch` until the bunker shows it lacks the batch route, then `compat`. */
  #mode: 'batch' | 'compat' = 'batch';

  constructor(options: HttpBunkerSignerOptions = {}) {
    const apiToken = options.apiToken?.trim();
    if (!apiToken) {
      throw createGermanError(
        'token_missing',
        'BUNKER_API_TOKEN is not set: put it in `.env` or the environment.',
      );
    }
    this.url = (options.url ?? DEFAULTS.bunkerUrl).replace(/\/+$/, '');
    try {
      new URL(this.url);
    } catch (cause) {
      throw new SiegelError('invalid_options', `BUNKER_URL \`${this.url}\` is not a valid URL`, { cause });
    }
    this.keyName = options.keyName ?? DEFAULTS.bunkerKeyName;
    this.#batchSize = positiveIntegerOption(options.batchSize, DEFAULTS.batchSize, 'batchSize');
    this.#connection = {
      url: this.url,
      urlSource:
        options.urlSource ??
        (options.url === undefined ? { kind: 'default' } : { kind: 'option', name: 'url' }),
      apiToken,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: positiveIntegerOption(options.timeoutMs, DEFAULTS.timeoutMs, 'timeoutMs'),
      retries: Math.max(0, options.retries ?? DEFAULTS.retries),
      retryDelayMs: Math.max(0, options.retryDelayMs ?? DEFAULTS.retryDelayMs),
    };
    this.#compatConcurrency = positiveIntegerOption(
      options.compatConcurrency,
      DEFAULTS.compatConcurrency,
      'compatConcurrency',
    );
  }

  /** The hex pubkey of the configured key (from `GET /api/keys`; on old bunkers from a probe signature). */
  async getPublicKey(): Promise<string> {
    if (this.#pubkey) return this.#pubkey;
    const key = await this.#readKey();
    if (key) {
      this.#pubkey = key.pubkey;
      return key.pubkey;
    }
    return this.#probe();
  }

  /**
   * Check, without signing pages, that the bunker answers, the token is accepted, and the key exists and
   * is unlocked.
   * @throws {SiegelError} as the class does.
   */
  async check(): Promise<void> {
    const key = await this.#readKey();
    if (!key) {
      await this.#probe();
      return;
    }
    if (key.locked) throw keyLockedError(this);
    this.#pubkey = key.pubkey;
  }

  async signEvents(templates: EventTemplate[]): Promise<NostrEvent[]> {
    const signed: NostrEvent[] = [];
    let start = 0;
    while (start < templates.length) {
      const chunk = templates.slice(start, start + this.#batchSize);
      const events = this.#mode === 'batch' ? await this.#signBatch(chunk) : await this.#signCompat(chunk);
      if (events === 'too_large') continue; // batch size was halved; retry the same range
      // The order pairs events with templates across chunks: a wrong count cannot be paired at all.
      if (events.length !== chunk.length)
        throw badAnswerError(this, 'sign', `${events.length} events for ${chunk.length} templates`);
      this.#hasSigned = true;
      signed.push(...events);
      start += chunk.length;
    }
    return signed;
  }

  async #readKey(): Promise<{ pubkey: string; locked: boolean } | undefined> {
    const response = await requestBunker(this.#connection, 'GET', '/api/keys');
    if (response.status === 404 || response.status === 405) return undefined; // an older bunker
    if (response.status !== 200 || !Array.isArray(response.body))
      throw bunkerStatusError(this, response, 'GET /api/keys');
    const key = (response.body as Array<Record<string, unknown>>).find(
      (entry) => entry?.name === this.keyName,
    );
    if (!key) throw keyNotFoundError(this);
    if (typeof key.pubkey !== 'string' || !HEX64.test(key.pubkey)) {
      throw new SiegelError(
        'bunker_error',
        `Bunker at BUNKER_URL \`${this.url}\` sent an invalid pubkey for \`${this.keyName}\``,
      );
    }
    return { pubkey: key.pubkey, locked: key.locked === true };
  }

  /** A short-lived NIP-98 style event for the bunker itself: what a probe signs. */
  #probeTemplate(): EventTemplate {
    return {
      kind: 27235,
      created_at: Math.floor(Date.now() / 1000),
      tags: [
        ['u', `${this.url}/api/sign`],
        ['method', 'POST'],
      ],
      content: '',
    };
  }

  /** Old bunkers list no pubkeys: sign a probe event to learn it. */
  async #probe(): Promise<string> {
    const template = this.#probeTemplate();
    const [event] = await this.signEvents([template]);
    if (!event) throw new SiegelError('bunker_error', `Bunker at BUNKER_URL \`${this.url}\` signed nothing`);
    // The key is learnt from this one signature: it must be the probe, validly signed by that key.
    const engine = await loadSigningEngine();
    const problem = checkSignedEvent(template, event, {
      pubkey: event.pubkey,
      engine,
      verifySignature: true,
    });
    if (problem) throw badAnswerError(this, 'the probe', problem);
    this.#pubkey = event.pubkey;
    return event.pubkey;
  }

  async #signBatch(chunk: EventTemplate[]): Promise<NostrEvent[] | 'too_large'> {
    const path = `/api/keys/${encodeURIComponent(this.keyName)}/sign`;
    const response = await requestBunker(this.#connection, 'POST', path, { events: chunk });
    if (response.status === 200) {
      const events = (response.body as { events?: unknown } | undefined)?.events;
      if (!Array.isArray(events)) throw badAnswerError(this, `POST ${path}`, 'no `events` array');
      return events as NostrEvent[];
    }
    if (
      (response.status === 404 && bunkerErrorCode(response.body) !== 'key_not_found') ||
      response.status === 405
    ) {
      this.#mode = 'compat';
      return this.#signCompat(chunk);
    }
    // Too many events in one request: the bunker's batch limit, learnt for the rest of the run.
    if (response.status === 413 && bunkerErrorCode(response.body) === 'batch_too_large' && chunk.length > 1) {
      this.#batchSize = Math.max(1, Math.floor(Math.min(this.#batchSize, chunk.length) / 2));
      return 'too_large';
    }
    throw await this.#failure(response, `POST ${path}`, chunk.length);
  }

  async #signCompat(chunk: EventTemplate[]): Promise<NostrEvent[]> {
    // One request per event, `compatConcurrency` at a time; after a failure no other is sent (the chunk
    // fails as a whole, and the tasks still queued are dropped unrun).
    const queue = new PQueue({ concurrency: this.#compatConcurrency });
    const signOne = async (event: EventTemplate): Promise<NostrEvent> => {
      const response = await requestBunker(this.#connection, 'POST', '/api/sign', {
        keyName: this.keyName,
        event,
      });
      const body = response.body as { success?: boolean; event?: NostrEvent } | undefined;
      if (response.status === 200 && body?.success !== false && body?.event) return body.event;
      throw await this.#failure(response, 'POST /api/sign', 1);
    };
    return Promise.all(
      chunk.map((event) =>
        queue.add(() =>
          signOne(event).catch((error: unknown) => {
            queue.clear();
            throw error;
          }),
        ),
      ),
    );
  }

  /**
   * The error for a sign request the bunker did not answer with 200. Token, key and lock problems stop the
   * run (`token_rejected`, `key_not_found`, `key_locked`), and so does anything else while the bunker does
   * not show that it signs other events. A refusal of what was sent — 413 (too large: the body, or one
   * event), 400 or 422 (an event it will not take) — is `event_refused` once the bunker has signed for this
   * signer (else one probe, a tiny event, is signed to find out). A 5xx that persisted through the retries
   * is `event_refused` only if the bunker signs a probe event right then: a bunker that went down fails
   * the probe too, and the run stops at once instead of failing page after page. `signSite` halves a
   * refused batch until the refused event is alone, and fails that page only.
   */
  async #failure(response: BunkerResponse, what: string, count: number): Promise<SiegelError> {
    const error = bunkerStatusError(this, response, what);
    const serverError = response.status >= 500;
    const refusal = [400, 413, 422].includes(response.status) || serverError;
    if (error.code !== 'bunker_error' || !refusal || !(await this.#signsOthers(serverError))) return error;
    const code = bunkerErrorCode(response.body);
    const detail = bunkerErrorMessage(response.body);
    const alone =
      response.status >= 500 && count === 1 ? ' (it signs other events: this one alone fails)' : '';
    return new SiegelError(
      'event_refused',
      `the bunker at \`${this.url}\` refused to sign ${count === 1 ? 'it' : `a batch of ${count} events`}: HTTP ${response.status}${code ? ` \`${code}\`` : ''}${detail ? ` ${detail}` : ''}${alone}`,
    );
  }

  /** Whether the bunker signs other events: it did for this signer (unless `now`), or it signs a probe now. */
  async #signsOthers(now: boolean): Promise<boolean> {
    if (this.#hasSigned && !now) return true;
    const probe = this.#probeTemplate();
    const response =
      this.#mode === 'batch'
        ? await requestBunker(
            this.#connection,
            'POST',
            `/api/keys/${encodeURIComponent(this.keyName)}/sign`,
            {
              events: [probe],
            },
          )
        : await requestBunker(this.#connection, 'POST', '/api/sign', { keyName: this.keyName, event: probe });
    const body = response.body as { events?: unknown; event?: unknown } | undefined;
    const signed =
      response.status === 200 && (Array.isArray(body?.events) ? body.events.length === 1 : !!body?.event);
    this.#hasSigned ||= signed;
    return signed;
  }
}
