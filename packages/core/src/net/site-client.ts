// net/ owns how Siegel talks to a site it does not control (`siegel verify https://…`): a careful HTTP
// client that assumes the site may be hostile. Every response is bounded in size, compressed and
// unpacked (bounded-body.ts); every request and the whole check are bounded in time (a server that drips
// a byte every few seconds is cut off too); redirects are followed only within the site's origin (or to
// origins the user allows) and only a few times; and no request reaches loopback, link-local or private
// addresses (address-policy.ts) unless the site itself is there — then only the site's own addresses.
// Names are resolved once and the connection goes to the address that was checked, so a name that
// resolves differently a second time (DNS rebinding) gains nothing.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { SiegelError } from '../errors.js';
import { classifyAddress } from './address-policy.js';
import { readBody } from './bounded-body.js';
import { type ConnectPolicy, type ResolvedAddress, resolveAllowed, systemResolve } from './connect-policy.js';
import { PLAIN_USER_AGENT } from './navigation-headers.js';

export type { ResolvedAddress } from './connect-policy.js';

/** Options of {@link SiteClient}; every field but `site` optional. */
export interface SiteClientOptions {
  /** The site: its origin is where requests and redirects go; its host may be on a private address. */
  site: URL;
  /**
   * Further origins redirects may lead to (e.g. `https://www.example.com`); default none. `'any'`: every
   * http(s) origin, for a client whose `policy` bounds where it connects (each target's host judged by it).
   */
  allowRedirectsTo?: string[] | 'any';
  /** Redirects followed per request, at most (default 5). */
  maxRedirects?: number;
  /** Time for one request, from connecting to the last byte of the body, in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** Time for everything this client does, in ms (default 600 000): the whole check. */
  totalTimeoutMs?: number;
  /** Resolves a host name to its addresses (default: the system's resolver, `dns.lookup`). For tests. */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
  /**
   * Which addresses may be connected to, the site's own included (net/connect-policy.ts; `resolve` then
   * is the policy's). Default: public addresses, and the site's own addresses whatever they are.
   */
  policy?: ConnectPolicy;
  /** `User-Agent` header (default `siegel-verify`). */
  userAgent?: string;
  /**
   * How messages name what stopped a request, for the command at hand (default: `siegel verify <url>`'s
   * options). A check whose limits are not those options (NIP-05) names its own, so that no message points
   * to an option that does not apply.
   */
  wording?: Partial<SiteClientWording>;
}

/** The words for the limits in {@link SiteClient}'s messages. */
export interface SiteClientWording {
  /** Who stops on the total time: `siegel verify stopped: the check`. */
  whole: string;
  /** After "not followed": what would allow another origin. */
  redirect: string;
  /** The total time's name. */
  totalTimeout: string;
  /** One request's time limit's name. */
  requestTimeout: string;
  /** The size limit's name. */
  maxBytes: string;
}

const VERIFY_WORDING: SiteClientWording = {
  whole: 'siegel verify stopped: the check',
  redirect: 'allow that origin with `--allow-redirects-to {origin}`',
  totalTimeout: 'the total timeout, `--total-timeout`',
  requestTimeout: 'the request timeout, `--request-timeout`',
  maxBytes: 'the page limit, `--max-page-bytes`',
};

/** What one GET gave: the final URL (after redirects), the status, the headers, and the body if read. */
export interface SiteResponse {
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  /** The unpacked body; `undefined` when the status was not 2xx or `wantBody` said no. */
  body: Buffer | undefined;
}

/** Options of one {@link SiteClient.get}. */
export interface SiteGetOptions {
  /** Largest body, in bytes, compressed as sent and unpacked alike. */
  maxBytes: number;
  /** `Accept` header. */
  accept: string;
  /** Further request headers (lowercase names); a `user-agent` among them replaces the client's. Default none. */
  headers?: Record<string, string>;
  /** Read the body of a 2xx response with these headers? (Default: yes.) Not read: the connection is closed. */
  wantBody?: (headers: IncomingHttpHeaders) => boolean;
}

export const SITE_CLIENT_DEFAULTS = {
  maxRedirects: 5,
  requestTimeoutMs: 30_000,
  totalTimeoutMs: 600_000,
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function fail(message: string, cause?: unknown): SiegelError {
  return new SiegelError('io_error', message, cause === undefined ? undefined : { cause });
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * A careful HTTP(S) client for one site (see the top of this file). One instance per check: it remembers
 * the addresses it resolved, and its total time runs from its creation.
 *
 * @example
 * ```ts
 * const client = new SiteClient({ site: new URL('https://example.com/') });
 * const page = await client.get(new URL('https://example.com/about/'), { maxBytes: 32 << 20, accept: 'text/html' });
 * ```
 * @throws {SiegelError} `invalid_options` for an origin in `allowRedirectsTo` that is not an http(s) URL.
 */
export class SiteClient {
  readonly #site: URL;
  readonly #allowedOrigins: Set<string>;
  readonly #anyOrigin: boolean;
  readonly #maxRedirects: number;
  readonly #requestTimeoutMs: number;
  readonly #totalTimeoutMs: number;
  readonly #deadline: AbortSignal;
  readonly #resolve: (host: string) => Promise<ResolvedAddress[]>;
  readonly #userAgent: string;
  readonly #wording: SiteClientWording;
  readonly #policy: ConnectPolicy | undefined;
  /** Host name → its checked addresses (resolved once: what was checked is what is connected to). */
  readonly #addresses = new Map<string, Promise<ResolvedAddress[]>>();
  #siteAddresses: Promise<Set<string>> | undefined;

  constructor(options: SiteClientOptions) {
    this.#site = options.site;
    this.#allowedOrigins = new Set([options.site.origin]);
    this.#anyOrigin = options.allowRedirectsTo === 'any';
    if (Array.isArray(options.allowRedirectsTo))
      for (const origin of options.allowRedirectsTo) this.#allowedOrigins.add(parseOrigin(origin));
    this.#maxRedirects = options.maxRedirects ?? SITE_CLIENT_DEFAULTS.maxRedirects;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? SITE_CLIENT_DEFAULTS.requestTimeoutMs;
    this.#totalTimeoutMs = options.totalTimeoutMs ?? SITE_CLIENT_DEFAULTS.totalTimeoutMs;
    this.#deadline = AbortSignal.timeout(this.#totalTimeoutMs);
    this.#resolve = options.resolve ?? systemResolve;
    this.#userAgent = options.userAgent ?? PLAIN_USER_AGENT;
    this.#wording = { ...VERIFY_WORDING, ...options.wording };
    this.#policy = options.policy;
  }

  /** The error once the whole check ran out of time (`undefined` before). */
  get expired(): SiegelError | undefined {
    return this.#deadline.aborted ? this.#deadlineError() : undefined;
  }

  /**
   * GET `url`, following redirects within the allowed origins.
   * @throws {SiegelError} `io_error` naming the URL: refused (another origin, a private address, a loop or too
   * many redirects), too large, too slow, or the network failed.
   */
  async get(url: URL, options: SiteGetOptions): Promise<SiteResponse> {
    if (!this.#allows(url.origin))
      throw fail(`\`${url.href}\` is outside the site \`${this.#site.origin}\`: not fetched`);
    const chain: string[] = [url.href];
    let current = url;
    for (;;) {
      if (this.#deadline.aborted) throw this.#deadlineError();
      const response = await this.#getOnce(current, options);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || typeof location !== 'string') return response;
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw fail(`\`${current.href}\` redirects to \`${location}\`, which is not a URL`);
      }
      next.hash = '';
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw fail(
          `\`${current.href}\` redirects to \`${next.href}\`, which is not an http(s) URL: not followed`,
        );
      if (!this.#allows(next.origin)) {
        throw fail(
          `\`${current.href}\` redirects to \`${next.href}\`, outside the site \`${this.#site.origin}\`: not followed (${this.#wording.redirect.replace('{origin}', next.origin)})`,
        );
      }
      if (chain.includes(next.href))
        throw fail(
          `\`${url.href}\` redirects in a loop: ${[...chain, next.href].map((u) => `\`${u}\``).join(' → ')}`,
        );
      if (chain.length > this.#maxRedirects)
        throw fail(`\`${url.href}\` redirects more than ${this.#maxRedirects} times: not followed further`);
      chain.push(next.href);
      current = next;
    }
  }

  #allows(origin: string): boolean {
    return this.#anyOrigin || this.#allowedOrigins.has(origin);
  }

  #deadlineError(): SiegelError {
    return fail(
      `${this.#wording.whole} took longer than ${seconds(this.#totalTimeoutMs)} in all (${this.#wording.totalTimeout})`,
    );
  }

  /** The addresses the site's own host resolved to: the only non-public ones any request may reach. */
  #ownAddresses(): Promise<Set<string>> {
    this.#siteAddresses ??= this.#lookup(this.#site.hostname).then(
      (addresses) => new Set(addresses.map(({ address }) => address)),
      () => new Set<string>(),
    );
    return this.#siteAddresses;
  }

  #lookup(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[|\]$/g, '');
    let found = this.#addresses.get(host);
    if (!found) {
      found =
        classifyAddress(host) === 'not an IP address'
          ? this.#resolve(host).catch((cause: unknown) => {
              const code = (cause as { code?: string })?.code ?? (cause as Error)?.message;
              throw fail(`Cannot resolve \`${host}\`${code ? ` (${code})` : ''}`, cause);
            })
          : Promise.resolve([{ address: host, family: host.includes(':') ? 6 : 4 }]);
      this.#addresses.set(host, found);
    }
    return found;
  }

  /** The checked addresses to connect to for `url`'s host. */
  async #addressesFor(url: URL): Promise<ResolvedAddress[]> {
    if (this.#policy) {
      const policy = this.#policy;
      let found = this.#addresses.get(url.hostname);
      if (!found) {
        found = resolveAllowed(policy, url.hostname);
        this.#addresses.set(url.hostname, found);
      }
      return found;
    }
    const found = await this.#lookup(url.hostname);
    if (url.hostname === this.#site.hostname) return found;
    const own = await this.#ownAddresses();
    const allowed = found.filter(({ address }) => own.has(address) || classifyAddress(address) === undefined);
    if (allowed.length > 0) return allowed;
    const [first] = found;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const what = first ? classifyAddress(first.address) : undefined;
    throw fail(
      `Refused to connect to \`${host}\`${first && first.address !== host ? ` (\`${first.address}\`)` : ''}: ${what ?? 'no address'} — siegel verify reaches loopback, link-local and private addresses only for the site's own host`,
    );
  }

  async #getOnce(url: URL, options: SiteGetOptions): Promise<SiteResponse> {
    const addresses = await this.#addressesFor(url);
    const timeout = AbortSignal.timeout(this.#requestTimeoutMs);
    const signal = AbortSignal.any([timeout, this.#deadline]);
    const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const timedOut = (cause?: unknown): SiegelError =>
      this.#deadline.aborted
        ? this.#deadlineError()
        : fail(
            `\`${url.href}\` did not answer in full within ${seconds(this.#requestTimeoutMs)} (${this.#wording.requestTimeout})`,
            cause,
          );
    return new Promise<SiteResponse>((resolve, reject) => {
      let settled = false;
      const settle = (error: SiegelError | undefined, value?: SiteResponse) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error) {
          request.destroy();
          reject(error);
        } else resolve(value as SiteResponse);
      };
      const onAbort = () => settle(timedOut(signal.reason));
      const request = send(url, {
        method: 'GET',
        lookup,
        agent: false,
        headers: {
          accept: options.accept,
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': this.#userAgent,
          ...options.headers,
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      request.on('error', (error: NodeJS.ErrnoException) =>
        settle(fail(`Cannot fetch \`${url.href}\` (${error.code ?? error.message})`, error)),
      );
      request.on('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const base = { url, status, headers: response.headers };
        const ok = status >= 200 && status < 300;
        if (!ok || options.wantBody?.(response.headers) === false) {
          response.destroy(); // the body is not wanted: close the connection instead of reading it
          settle(undefined, { ...base, body: undefined });
          return;
        }
        readBody(url, response, options.maxBytes, this.#wording.maxBytes).then(
          (body) => settle(undefined, { ...base, body }),
          (error: SiegelError) => settle(error),
        );
      });
      request.end();
    });
  }
}

/** `text` as an origin for `allowRedirectsTo`. */
function parseOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new SiegelError(
      'invalid_options',
      `\`--allow-redirects-to\` takes an origin such as \`https://www.example.com\`, got \`${text}\``,
    );
  return url.origin;
}
