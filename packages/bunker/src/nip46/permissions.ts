import { BunkerError } from '../errors.js';

/** What a NIP-46 client may do with its key: sign these kinds, and use the encryption methods. */
export interface Nip46Permissions {
  /** Event kinds `sign_event` accepts, ascending. */
  kinds: number[];
  /** `nip44_encrypt` / `nip44_decrypt` allowed. */
  nip44: boolean;
  /** `nip04_encrypt` / `nip04_decrypt` allowed. */
  nip04: boolean;
}

/**
 * The kinds Siegel signs, the default a new connection may sign: 1063 for pages and files (NIP-94 file
 * metadata, core's `PAGE_EVENT_KIND`) and 15128 / 35128 for the site manifest every signing run signs
 * (NIP-5A, core's `NSITE_ROOT_KIND` / `NSITE_NAMED_KIND`). Written out rather than imported so the bunker
 * loads none of core's page code; `packages/bunker/test/nip46.test.ts` keeps them equal to core's.
 */
export const DEFAULT_NIP46_KINDS: readonly number[] = [1063, 15128, 35128];

/**
 * Read a comma-separated list of event kinds (`--nip46-kinds`, `BUNKER_NIP46_KINDS`, the dashboard form).
 *
 * @example
 * ```ts
 * parseKinds('1063, 1') // [1, 1063]
 * ```
 * @throws {BunkerError} `invalid_request` quoting a value that is no kind (an integer 0–65535), or when the
 *   list is empty.
 */
export function parseKinds(text: string, source = 'kinds'): number[] {
  const kinds = new Set<number>();
  for (const part of text.split(',')) {
    const value = part.trim();
    if (!value) continue;
    const kind = Number(value);
    if (!/^\d+$/.test(value) || kind > 65535) {
      throw new BunkerError(
        'invalid_request',
        `\`${value.slice(0, 40)}\` (${source}) is not an event kind: give integers from 0 to 65535, e.g. \`1063,1\``,
      );
    }
    kinds.add(kind);
  }
  if (kinds.size === 0)
    throw new BunkerError('invalid_request', `${source}: give at least one event kind, e.g. \`1063\``);
  return [...kinds].sort((a, b) => a - b);
}

/**
 * The permissions a client gets at `connect`: what it asked for (NIP-46 `perms`, e.g.
 * `sign_event:1063,nip44_encrypt`) within what the connection secret offers. No `perms` (or an empty
 * string, as nostr-tools' `BunkerSigner` sends) takes the whole offer; `sign_event` without a kind asks for
 * every offered kind. Unknown entries are ignored: a client never gets more than the offer.
 *
 * @example
 * ```ts
 * grantPermissions('sign_event:1063,sign_event:1', { kinds: [1063], nip44: true, nip04: false })
 * // { kinds: [1063], nip44: false, nip04: false }
 * ```
 */
export function grantPermissions(requested: string | undefined, offer: Nip46Permissions): Nip46Permissions {
  const text = requested?.trim() ?? '';
  if (!text) return { kinds: [...offer.kinds], nip44: offer.nip44, nip04: offer.nip04 };
  const kinds = new Set<number>();
  let nip44 = false;
  let nip04 = false;
  for (const entry of text.split(',')) {
    const [method = '', param] = entry.trim().split(':');
    if (method === 'sign_event') {
      if (param === undefined) for (const kind of offer.kinds) kinds.add(kind);
      else if (offer.kinds.includes(Number(param)) && /^\d+$/.test(param)) kinds.add(Number(param));
    } else if (method.startsWith('nip44_')) {
      nip44 = offer.nip44;
    } else if (method.startsWith('nip04_')) {
      nip04 = offer.nip04;
    }
  }
  return { kinds: [...kinds].sort((a, b) => a - b), nip44, nip04 };
}

/** The permissions as NIP-46 writes them, e.g. `sign_event:1063,nip44_encrypt,nip44_decrypt`. */
export function formatPermissions(permissions: Nip46Permissions): string {
  const parts = permissions.kinds.map((kind) => `sign_event:${kind}`);
  if (permissions.nip44) parts.push('nip44_encrypt', 'nip44_decrypt');
  if (permissions.nip04) parts.push('nip04_encrypt', 'nip04_decrypt');
  return parts.join(',');
}
