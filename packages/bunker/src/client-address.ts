import { isIPv6 } from 'node:net';
import type { Context } from 'hono';

/**
 * Who a request comes from, for throttling: the peer address of its connection (never a header a client
 * could set, such as `X-Forwarded-For`). An IPv4 address stands for itself (also when IPv4-mapped, as
 * `::ffff:1.2.3.4`); an IPv6 address for its /64 network, since one host usually holds a whole /64 and could
 * otherwise change address with every guess. `unknown` when the request did not come over a socket (e.g.
 * `app.request()` in tests).
 */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return addressGroup(env?.incoming?.socket?.remoteAddress);
}

/** The throttling group of one address: see {@link clientAddress}. */
export function addressGroup(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address.replace(/%.*$/, ''))) return address;
  return `${ipv6Groups(address.replace(/%.*$/, '')).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16).toString(16)];
          // An embedded IPv4 address fills the last two groups.
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
}
