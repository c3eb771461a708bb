import { isLoopbackHost } from '../net/address-policy.js';

/**
 * The warning for a bunker reached over plain `http://` on a host that is not this machine: the Bearer
 * token (and every event) would travel in cleartext. `undefined` for `https://` and for loopback hosts
 * (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`, `::ffff:127.…`).
 *
 * @example
 * ```ts
 * describeCleartextBunker('http://bunker.example:7777')
 * // 'BUNKER_URL `http://bunker.example:7777` is plain http:// to a host that is not this machine: …'
 * describeCleartextBunker('http://127.0.0.1:7777') // undefined
 * ```
 */
export function describeCleartextBunker(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // reported as invalid elsewhere
  }
  if (parsed.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return undefined;
  return `BUNKER_URL \`${url}\` is plain http:// to a host that is not this machine: BUNKER_API_TOKEN travels in cleartext. Use https:// (or a tunnel to localhost).`;
}

const warned = new Set<string>();

/** {@link describeCleartextBunker}, but only the first time per URL in this process (watch modes rerun). */
export function cleartextBunkerWarningOnce(url: string): string | undefined {
  const warning = describeCleartextBunker(url);
  if (!warning || warned.has(url)) return undefined;
  warned.add(url);
  return warning;
}
