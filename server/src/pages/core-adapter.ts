// pages/ owns checking a page at an address for anyone (issue 38): core's `checkPageAtUrl` behind one
// flight per URL, a brief cache and a rate per target host (`page-checks.ts`).
// TEMPORARY: core's `checkPageAtUrl` and `ConnectPolicy`, as the issue-38 contract states them, over
// `verifySite` until they land in @siegel/core; deleted then. It checks the page's own address against the
// policy before fetching; redirects, relay hints and NIP-05 are not governed here.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { describeCoverage, type PageVerification, SiegelError, verifySite } from '@siegel/core';
import { isLoopbackHost } from '@siegel/core/browser';
import { npubEncode } from 'nostr-tools/nip19';

/** Which addresses a check may connect to. */
export interface ConnectPolicy {
  refuse(address: string, host: string): string | undefined;
  resolve?(host: string): Promise<Array<{ address: string; family: 4 | 6 }>>;
}

const PRIVATE_V4: Array<[RegExp, string]> = [
  [/^0\./, 'an unspecified address'],
  [/^10\./, 'a private address'],
  [/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./, 'a shared (carrier-grade NAT) address'],
  [/^169\.254\./, 'a link-local address'],
  [/^172\.(1[6-9]|2\d|3[01])\./, 'a private address'],
  [/^192\.168\./, 'a private address'],
];

/** Public internet addresses only. */
export const PUBLIC_ADDRESSES_ONLY: ConnectPolicy = {
  refuse(address) {
    if (isLoopbackHost(address.includes(':') ? `[${address}]` : address)) return 'a loopback address';
    for (const [range, what] of PRIVATE_V4) if (range.test(address)) return what;
    if (/^f[cd]/i.test(address)) return 'a unique-local (private) address';
    if (/^fe[89ab]/i.test(address)) return 'a link-local address';
    if (address === '::') return 'an unspecified address';
    return undefined;
  },
};

export interface CheckPageAtUrlOptions {
  policy: ConnectPolicy;
  relays?: string[];
  relayTimeoutMs?: number;
  requestTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxPageBytes?: number;
  maxRedirects?: number;
  checkCloaking?: boolean;
}

export interface PageAtUrl {
  page: PageVerification;
  checkedAt: number;
  coverage: string;
  event?: { id: string; pubkey: string; npub: string; created_at: number; url?: string; title?: string };
  content?: { html: string; text: string };
  signer?: {
    npub: string;
    nip05?: { name: string; state: 'confirmed' | 'unconfirmed' | 'unreachable'; reason?: string };
  };
  freshUntil?: number;
}

/** The contract's `checkPageAtUrl`, over `verifySite` (no event time, no content, no NIP-05). */
export async function checkPageAtUrl(url: string, options: CheckPageAtUrlOptions): Promise<PageAtUrl> {
  let host: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    host = parsed.hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new SiegelError('invalid_options', `Not an http(s) URL: \`${url}\``);
  }
  const addresses =
    isIP(host) !== 0
      ? [{ address: host }]
      : await (options.policy.resolve?.(host) ?? lookup(host, { all: true })).catch((cause) => {
          throw new SiegelError('io_error', `${host} cannot be resolved`, { cause });
        });
  for (const { address } of addresses) {
    const why = options.policy.refuse(address, host);
    if (why !== undefined)
      throw new SiegelError('io_error', `Refused to connect to ${host} (${address}): ${why}`);
  }
  const report = await verifySite(url, {
    maxPages: 1,
    checkCloaking: options.checkCloaking ?? true,
    ...(options.relays && { relays: options.relays }),
    ...(options.relayTimeoutMs && { relayTimeoutMs: options.relayTimeoutMs }),
    ...(options.requestTimeoutMs && { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.totalTimeoutMs && { totalTimeoutMs: options.totalTimeoutMs }),
    ...(options.maxPageBytes && { maxPageBytes: options.maxPageBytes }),
    ...(options.maxRedirects !== undefined && { maxRedirects: options.maxRedirects }),
  });
  const page = report.pages[0];
  if (page === undefined)
    throw new SiegelError('io_error', `${url} has neither a signed element nor a block`);
  const pubkey = page.found.pubkey;
  return {
    page,
    checkedAt: Date.now(),
    coverage: describeCoverage('main'),
    ...(pubkey && /^[0-9a-f]{64}$/.test(pubkey) && { signer: { npub: npubEncode(pubkey) } }),
  };
}
