// NIP-05 for `siegel verify --signer name@domain`: the name's pubkey from the domain's
// `/.well-known/nostr.json`, fetched by the careful site client (net/): bounded size and time, no redirects
// (NIP-05 says to ignore them), no private addresses but the domain's own.
import { SiegelError } from '../errors.js';
import { isLoopbackHost } from '../net/address-policy.js';
import type { ConnectPolicy } from '../net/connect-policy.js';
import { SiteClient } from '../net/site-client.js';
import { HEX64 } from '../nostr/crypto.js';

/** Largest `nostr.json` read, in bytes: 256 KiB (a domain with many names stays far below). */
const MAX_NOSTR_JSON_BYTES = 256 * 1024;

/** A NIP-05 identifier taken apart. */
export interface Nip05Address {
  /** Local part, lower case (`_` for a bare domain). */
  name: string;
  /** Where its pubkey is read: `https://domain/.well-known/nostr.json?name=…` (`http://` on a loopback host). */
  url: URL;
}

/**
 * Read `name@domain` (or a bare `domain`, meaning `_@domain`). The domain is fetched over `https://`;
 * only a loopback host (a local test server, `127.0.0.1:PORT`) is fetched over `http://`.
 *
 * @example
 * ```ts
 * parseNip05('Bob@Example.com').url.href // 'https://example.com/.well-known/nostr.json?name=bob'
 * ```
 * @throws {SiegelError} `invalid_options` quoting the identifier.
 */
export function parseNip05(identifier: string): Nip05Address {
  const text = identifier.trim();
  const at = text.lastIndexOf('@');
  const name = (at < 0 ? '_' : text.slice(0, at)).toLowerCase();
  const domain = at < 0 ? text : text.slice(at + 1);
  const bad = (why: string) =>
    new SiegelError('invalid_options', `The NIP-05 identifier \`${identifier}\` is not valid: ${why}`);
  if (!/^[a-z0-9._-]+$/.test(name)) throw bad('the name may hold only a-z, 0-9, `-`, `_` and `.`');
  let url: URL;
  try {
    url = new URL(`https://${domain}/.well-known/nostr.json`);
  } catch {
    throw bad('the domain is not a host name');
  }
  if (!domain || /[/?#@\\]/.test(domain) || url.host !== domain.toLowerCase())
    throw bad('the domain is not a host name');
  if (isLoopbackHost(url.hostname)) url.protocol = 'http:';
  url.searchParams.set('name', name);
  return { name, url };
}

/**
 * The pubkey (hex) that `identifier`'s domain names for it in its `nostr.json`.
 *
 * @example
 * ```ts
 * const pubkey = await resolveNip05('bob@example.com');
 * ```
 * @throws {SiegelError} `invalid_options` for a malformed identifier; `io_error` when the domain cannot be
 * read (refused, redirected, too large, too slow, not JSON) or does not name a valid key for the name.
 */
export async function resolveNip05(
  identifier: string,
  options: { requestTimeoutMs?: number; policy?: ConnectPolicy } = {},
): Promise<string> {
  const { name, url } = parseNip05(identifier);
  const timeout = options.requestTimeoutMs ?? 10_000;
  const client = new SiteClient({
    site: new URL(url.origin),
    maxRedirects: 0,
    requestTimeoutMs: timeout,
    totalTimeoutMs: timeout,
    ...(options.policy ? { policy: options.policy } : {}),
    // Only these limits apply to a NIP-05 lookup: no message names another option of `siegel verify`.
    wording: {
      whole: 'the NIP-05 lookup',
      redirect: 'NIP-05 does not follow redirects',
      totalTimeout: '`--request-timeout`',
      requestTimeout: '`--request-timeout`',
      maxBytes: 'the limit for a `nostr.json`',
    },
  });
  const fail = (why: string, cause?: unknown) =>
    new SiegelError(
      'io_error',
      `NIP-05 \`${identifier}\`: ${why}`,
      cause === undefined ? undefined : { cause },
    );
  let body: Buffer | undefined;
  try {
    const response = await client.get(url, { maxBytes: MAX_NOSTR_JSON_BYTES, accept: 'application/json' });
    if (response.status !== 200 || !response.body)
      throw fail(`\`${url.href}\` answered HTTP ${response.status}`);
    body = response.body;
  } catch (error) {
    if (error instanceof SiegelError && error.message.startsWith('NIP-05')) throw error;
    throw fail((error as Error).message, error);
  }
  let names: unknown;
  try {
    names = (JSON.parse(body.toString('utf8')) as { names?: unknown })?.names;
  } catch (cause) {
    throw fail(`\`${url.href}\` is not JSON`, cause);
  }
  const pubkey = names && typeof names === 'object' ? (names as Record<string, unknown>)[name] : undefined;
  if (typeof pubkey !== 'string') throw fail(`\`${url.href}\` names no key for \`${name}\``);
  if (!HEX64.test(pubkey))
    throw fail(
      `\`${url.href}\` names \`${pubkey}\` for \`${name}\`, which is not 64 lower-case hex characters`,
    );
  return pubkey;
}
