/**
 * Whom the reader trusts for a page's origin, turned into the rule book's input and the extension's own
 * codes. A pin (npub, hex or NIP-05 name) is the expected signer — another key is `signer.unexpected`,
 * as `siegel verify --pubkey` — and a NIP-05 pin whose domain names no key is `signer.unresolved`. Without a
 * pin, trust on first use: the first key valid on an origin is accepted by itself; another key there is
 * `signer.new` (a warning: NEW SIGNER) until the reader accepts or pins it.
 */
import { resolveNip05 } from '@siegel/core/browser';
import { createProblem, type Problem } from '@siegel/core/rules';
import { decode } from 'nostr-tools/nip19';
import { acceptIfFirst, type Settings } from '../common/settings.js';

/** The expected signer of a pin, for `judgePage`'s `expected`, or why it is not known. */
export type Expected = { pubkey: string; nip05?: string } | { unresolved: Problem } | undefined;

/** The signer pinned for `origin`, as `judgePage` expects it. */
export async function readExpected(settings: Settings, origin: string): Promise<Expected> {
  const pin = settings.pins[origin]?.trim();
  if (!pin) return undefined;
  if (/^[0-9a-fA-F]{64}$/.test(pin)) return { pubkey: pin.toLowerCase() };
  if (pin.startsWith('npub1')) {
    try {
      const decoded = decode(pin);
      if (decoded.type === 'npub') return { pubkey: decoded.data };
    } catch {}
  }
  const pubkey = await resolveNip05(pin);
  if (pubkey !== undefined) return { pubkey, nip05: pin };
  return {
    unresolved: createProblem(
      'signer.unresolved',
      `the signer pinned for this site, \`${pin}\`, did not resolve to a key (its domain named none)`,
    ),
  };
}

/**
 * Trust on first use for a page judged valid so far: accepts the first key seen on `origin`, and gives
 * `signer.new` for a key not accepted there. A pinned origin is decided by the pin alone.
 */
export async function judgeTrust(
  settings: Settings,
  origin: string,
  pubkey: string,
  pinned: boolean,
): Promise<{ trust: 'pinned' | 'accepted' | 'new'; since?: number; problem?: Problem }> {
  if (pinned) return { trust: 'pinned' };
  const seen = (settings.known[origin] ?? []).find((key) => key.pubkey === pubkey);
  if (seen) return { trust: 'accepted', since: seen.since };
  // Not accepted when the check started: the first key of the origin is accepted now, in one write.
  const keys = await acceptIfFirst(origin, pubkey);
  const known = keys.find((key) => key.pubkey === pubkey);
  if (known) return { trust: 'accepted', since: known.since };
  return {
    trust: 'new',
    problem: createProblem(
      'signer.new',
      `this site was signed by ${keys.length === 1 ? 'another key' : `${keys.length} other keys`} before; you have not accepted \`${pubkey}\` for it yet`,
    ),
  };
}
