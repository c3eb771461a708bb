// Which addresses a check may connect to, when the check runs somewhere that has a network of its own to
// protect: a server that verifies any URL a stranger gives it (the file server's verify-by-URL). Unlike
// `siegel verify <url>`, which may reach a private address when the site itself is there (a local
// preview), a policy has no such exception: every connection a check makes — the page and each redirect,
// the site's files, Blossom blobs, relay WebSockets, NIP-05 lookups — resolves its host name once, asks
// the policy about each address, and connects to one of the addresses the policy allowed (so a name that
// resolves differently a second time, DNS rebinding, gains nothing). `SiteClient` and the relay socket
// (nostr/relay-socket.ts) are its users.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { SiegelError } from '../errors.js';
import { classifyAddress } from './address-policy.js';

/** An address a name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Which addresses a check may connect to (see the top of this file).
 *
 * @example
 * ```ts
 * // Public addresses and one test fixture's loopback address.
 * const policy: ConnectPolicy = {
 *   refuse: (address, host) => (address === '127.0.0.2' ? undefined : PUBLIC_ADDRESSES_ONLY.refuse(address, host)),
 * };
 * ```
 */
export interface ConnectPolicy {
  /**
   * Why a connection to `address` (an IP address that `host` resolved to, or `host` itself when it is an
   * IP literal) is refused, as a phrase for a message (`'a loopback address'`); `undefined` allows it.
   */
  refuse(address: string, host: string): string | undefined;
  /** Resolves a host name to its addresses (default: the system's resolver, `dns.lookup`, all of them). */
  resolve?(host: string): Promise<ResolvedAddress[]>;
}

/**
 * Public internet addresses only: loopback, private, link-local (169.254.169.254, where cloud metadata
 * services answer), unique-local, shared (CGNAT), unspecified, multicast, reserved and documentation
 * addresses are refused, and IPv6 forms that carry such an IPv4 address (`net/address-policy.ts`).
 */
export const PUBLIC_ADDRESSES_ONLY: ConnectPolicy = Object.freeze({
  refuse: (address: string) => classifyAddress(address),
});

/** The system's resolver: every address of `host`, in the order it gave them. */
export async function systemResolve(host: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** `host` without URL brackets (`[::1]` → `::1`). */
export function bareHost(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

/**
 * The addresses of `host` that `policy` allows, resolved once (an IP literal is its own address).
 *
 * @example
 * ```ts
 * const [first] = await resolveAllowed(PUBLIC_ADDRESSES_ONLY, 'relay.example.com');
 * ```
 * @throws {SiegelError} `io_error`: the name cannot be resolved, or every address is refused — naming the
 * host, the address and why, e.g. "Refused to connect to `localhost` (`127.0.0.1`): a loopback address".
 */
export async function resolveAllowed(policy: ConnectPolicy, host: string): Promise<ResolvedAddress[]> {
  const name = bareHost(host);
  let found: ResolvedAddress[];
  if (classifyAddress(name) !== 'not an IP address')
    found = [{ address: name, family: name.includes(':') ? 6 : 4 }];
  else {
    try {
      found = await (policy.resolve ?? systemResolve)(name);
    } catch (cause) {
      const code = (cause as { code?: string })?.code ?? (cause as Error)?.message;
      throw new SiegelError('io_error', `Cannot resolve \`${name}\`${code ? ` (${code})` : ''}`, { cause });
    }
  }
  const allowed = found.filter(({ address }) => policy.refuse(address, name) === undefined);
  if (allowed.length > 0) return allowed;
  const [first] = found;
  throw refusal(name, first?.address, first ? policy.refuse(first.address, name) : 'no address');
}

function refusal(name: string, address: string | undefined, why: string | undefined): SiegelError {
  return new SiegelError(
    'io_error',
    `Refused to connect to \`${name}\`${address !== undefined && address !== name ? ` (\`${address}\`)` : ''}: ${why} — this verifier connects to public addresses only`,
  );
}

/**
 * The refusal of `host` when it is an IP literal that `policy` refuses (`undefined` for a name, or an
 * address it allows): what to check before `net.connect`, which calls no `lookup` for a literal.
 */
export function refuseLiteral(policy: ConnectPolicy, host: string): SiegelError | undefined {
  const name = bareHost(host);
  if (classifyAddress(name) === 'not an IP address') return undefined;
  const why = policy.refuse(name, name);
  return why === undefined ? undefined : refusal(name, name, why);
}

/**
 * A `lookup` for `net.connect` (and so for `http.request` and `ws`) that resolves through `policy` and
 * gives only the addresses it allows; a refusal is the connection's error. Node does not call `lookup` for
 * an IP literal: check such a host with {@link refuseLiteral} before connecting. `onRefused` hears the
 * refusal's message (the connection's error may reach its user worded by another library).
 */
export function policyLookup(policy: ConnectPolicy, onRefused?: (message: string) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(policy, hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (options.all) callback(null, usable);
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
      },
      (error: Error) => {
        onRefused?.(error.message);
        callback(error as NodeJS.ErrnoException, '', 4);
      },
    );
  };
}
