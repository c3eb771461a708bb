// Which IP addresses a client that fetches what a stranger's site points it at may connect to. Everything
// that is not the public internet is named here: the machine itself, its local networks, link-local (where
// cloud metadata services live: 169.254.169.254, fe80::), and the ranges that are reserved or only
// tunnel another address (IPv4 inside IPv6 is judged by the IPv4 address it carries).
// Pure: no Node built-ins, so Node (`siegel verify`, the bunker client) and the browser verify script share
// one rule. Hosts are read the way WHATWG URL reads them (`127.1` is 127.0.0.1, `[::ffff:127.0.0.1]` is
// `[::ffff:7f00:1]`), which is also how a browser and `fetch` resolve a literal address.

/** IPv4 ranges that are not the public internet: [first address, prefix length, what it is]. */
const IPV4_RANGES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved (IETF protocol) address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

const IPV4_TABLE = IPV4_RANGES.map(([first, prefix, what]) => ({
  start: ipv4ToNumber(first),
  size: 2 ** (32 - prefix),
  what,
}));

function classifyIpv4(address: string): string | undefined {
  const value = ipv4ToNumber(address);
  return IPV4_TABLE.find((range) => value >= range.start && value < range.start + range.size)?.what;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part counts as two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const value = ipv4ToNumber(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...new Array(8 - first.length - last.length).fill(0), ...last];
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function classifyIpv6(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const carried = (label: string, v4: string) => {
    const what = classifyIpv4(v4);
    return what === undefined ? undefined : `${what} (${v4}, as ${label})`;
  };
  if (zeros(0, 8)) return 'an unspecified address';
  if (zeros(0, 7) && g[7] === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d): the IPv4 address counts.
  if (zeros(0, 5) && g[5] === 0xffff) return carried('IPv4-mapped IPv6', ipv4From(g[6] ?? 0, g[7] ?? 0));
  if (zeros(0, 6))
    return carried('IPv4-compatible IPv6', ipv4From(g[6] ?? 0, g[7] ?? 0)) ?? 'a reserved address';
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6))
    return carried('NAT64 IPv6', ipv4From(g[6] ?? 0, g[7] ?? 0));
  const first = g[0] ?? 0;
  if (first === 0x2002) return carried('6to4 IPv6', ipv4From(g[1] ?? 0, g[2] ?? 0));
  if (first === 0x2001 && g[1] === 0) return 'a Teredo tunnel address';
  if (first === 0x2001 && g[1] === 0xdb8) return 'a documentation address';
  if ((first & 0xfe00) === 0xfc00) return 'a unique-local (private) address';
  if ((first & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((first & 0xffc0) === 0xfec0) return 'a site-local (private) address';
  if ((first & 0xff00) === 0xff00) return 'a multicast address';
  if (first === 0x0100 && zeros(1, 4)) return 'a discard-only address';
  return undefined;
}

/**
 * What kind of address `address` is when it is not a public internet address — loopback, link-local,
 * private, unique-local, unspecified, multicast, reserved, documentation, or an IPv6 form carrying such an
 * IPv4 address (`::ffff:127.0.0.1`, NAT64, 6to4) — as a phrase for a message; `undefined` for a public one.
 * Not an IP address at all: `'not an IP address'`.
 *
 * @example
 * ```ts
 * classifyAddress('169.254.169.254'); // 'a link-local address'
 * classifyAddress('::ffff:7f00:1');   // 'a loopback address (127.0.0.1, as IPv4-mapped IPv6)'
 * classifyAddress('93.184.215.14');   // undefined
 * ```
 */
export function classifyAddress(address: string): string | undefined {
  const host = normalizeHost(address);
  if (host === undefined) return 'not an IP address';
  if (host.startsWith('[')) return classifyIpv6(host.slice(1, -1));
  if (IPV4.test(host)) return classifyIpv4(host);
  return 'not an IP address';
}

const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * The host as WHATWG URL canonicalises it (lowercase; IPv4 in dotted decimal, from any form a URL accepts;
 * IPv6 compressed, in brackets; a zone index dropped), or `undefined` when no URL can have it as its host.
 */
function normalizeHost(host: string): string | undefined {
  const bare = host
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .replace(/\.$/, '');
  if (bare === '' || /[/?#@\\\s]/.test(bare)) return undefined;
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * True for a host that is this machine: `localhost`, `*.localhost` (RFC 6761; browsers resolve them to
 * loopback), `127.0.0.0/8` in any form a URL accepts, `::1`, and IPv6 forms carrying a loopback IPv4
 * address (`::ffff:127.0.0.1`). `0.0.0.0` is not: it is the unspecified address ({@link isLocalHost}).
 *
 * @example
 * ```ts
 * isLoopbackHost('app.localhost');      // true
 * isLoopbackHost('[::ffff:127.0.0.1]'); // true
 * isLoopbackHost('0.0.0.0');            // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const normal = normalizeHost(host);
  if (normal === undefined) return false;
  if (normal === 'localhost' || normal.endsWith('.localhost')) return true;
  // `::ffff:127.0.0.1` is 127.0.0.1 on this machine's stack; NAT64 or 6to4 forms reach a gateway, not it.
  const kind = classifyAddress(normal);
  return (
    kind === 'a loopback address' ||
    (kind?.startsWith('a loopback address (') === true && kind.includes('IPv4-mapped'))
  );
}

/**
 * True for a host that is not on the public internet: a loopback host ({@link isLoopbackHost}) or an IP
 * address {@link classifyAddress} names (private, link-local, unspecified, reserved, …). A page a stranger
 * serves must not make a verifier reach such a host.
 *
 * @example
 * ```ts
 * isLocalHost('169.254.169.254'); // true
 * isLocalHost('relay.example');   // false
 * ```
 */
export function isLocalHost(host: string): boolean {
  if (isLoopbackHost(host)) return true;
  const kind = classifyAddress(host);
  return kind !== undefined && kind !== 'not an IP address';
}
