/**
 * The signer's NIP-05 name on a verify page, once the check said valid: the newest kind-0 profile of the
 * key on the relays the `nevent` names (signature checked), its `nip05` (`name@domain`) confirmed against
 * `https://domain/.well-known/nostr.json?name=name` naming exactly this key. Anything short of that shows
 * nothing: a name is only shown when it checks out. The result goes into `#siegel-identity` (created after
 * `#siegel-status`) with `data-nip05` for tools and tests.
 */
import { type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { isLocalHost } from '../../net/address-policy.js';
import { queryRelay, type RelayPool } from '../../nostr/relay-query-portable.js';
import { MAX_RELAY_HINTS } from '../../nostr/relays.js';
import { nip05Url } from './browser-relays.js';

async function readProfileNip05(
  pubkey: string,
  relays: readonly string[],
  pool: RelayPool | undefined,
): Promise<string | undefined> {
  const accept = (event: NostrEvent) => event.kind === 0 && event.pubkey === pubkey && verifyEvent(event);
  // The lookup page joins the hints of its URL's nevent and of the page's block: still at most 5 relays.
  const answers = await Promise.all(
    relays
      .slice(0, MAX_RELAY_HINTS)
      .map((relay) =>
        queryRelay(
          relay,
          { kinds: [0], authors: [pubkey], limit: 1 },
          { accept, timeoutMs: 8000, ...(pool ? { pool } : {}) },
        ),
      ),
  );
  const newest = answers.flatMap((answer) => answer.events).sort((a, b) => b.created_at - a.created_at)[0];
  if (!newest) return undefined;
  try {
    const nip05 = (JSON.parse(newest.content) as { nip05?: unknown }).nip05;
    return typeof nip05 === 'string' ? nip05.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key a NIP-05 name (`name@domain`, or a bare `domain` for `_@domain`) stands for, by its domain's
 * `/.well-known/nostr.json?name=…` (https; http only on a loopback host), no redirects followed (NIP-05),
 * no cookies, 8 s at most; `undefined` when the domain names no key for it.
 *
 * @example
 * ```ts
 * const pubkey = await resolveNip05('bob@example.com');
 * ```
 */
export async function resolveNip05(
  nip05: string,
  options: { pageHost?: string } = {},
): Promise<string | undefined> {
  const at = nip05.lastIndexOf('@');
  const name = (at < 0 ? '_' : nip05.slice(0, at)).toLowerCase();
  const url = nip05Url(at < 0 ? nip05 : nip05.slice(at + 1), name);
  if (!url || !/^[a-z0-9._-]+$/.test(name)) return undefined;
  // A name from a page's signer (not the reader's own pin): core's address rule, as for relay hints — no
  // local or private host unless the page itself is on one (judged as text: a browser has no DNS API).
  const { pageHost } = options;
  if (pageHost !== undefined && isLocalHost(url.hostname) && !isLocalHost(pageHost)) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 8000);
  try {
    // NIP-05: redirects are not followed.
    const response = await fetch(url, { redirect: 'error', credentials: 'omit', signal: controller.signal });
    if (!response.ok) return undefined;
    const key = ((await response.json()) as { names?: Record<string, unknown> })?.names?.[name];
    return typeof key === 'string' && /^[0-9a-f]{64}$/.test(key) ? key : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

async function confirmNip05(nip05: string, pubkey: string, pageHost: string): Promise<boolean> {
  return (await resolveNip05(nip05, { pageHost })) === pubkey;
}

/**
 * The signer's NIP-05 name when their newest profile on `relays` (at most `MAX_RELAY_HINTS`) names one whose
 * domain confirms exactly this key; `undefined` otherwise (`claimed`: the name the profile gave, if any).
 *
 * @example
 * ```ts
 * const { confirmed } = await readSignerNip05(pubkey, ['wss://relay.example'], location.hostname);
 * ```
 */
export async function readSignerNip05(
  pubkey: string,
  relays: readonly string[],
  pageHost: string,
  pool?: RelayPool,
): Promise<{ claimed?: string; confirmed?: string }> {
  if (relays.length === 0) return {};
  const nip05 = await readProfileNip05(pubkey, relays, pool);
  if (!nip05) return {};
  return (await confirmNip05(nip05, pubkey, pageHost))
    ? { claimed: nip05, confirmed: nip05 }
    : { claimed: nip05 };
}

/** Show the signer's NIP-05 name under the verdict when their profile names one that checks out. */
export async function showIdentity(pubkey: string, relays: readonly string[]): Promise<void> {
  const nip05 = (await readSignerNip05(pubkey, relays, location.hostname)).confirmed;
  if (!nip05) return;
  const status = document.getElementById('siegel-status');
  const line = document.createElement('p');
  line.id = 'siegel-identity';
  line.dataset.nip05 = nip05;
  line.textContent = `Signer’s NIP-05 name: ${nip05.replace(/^_@/, '')} (confirmed by its domain)`;
  status?.after(line);
}
