/**
 * The signer's NIP-05 name on a verify page, once the check said valid: the newest kind-0 profile of the
 * key on the relays the `nevent` names (signature checked), its `nip05` (`name@domain`) confirmed against
 * `https://domain/.well-known/nostr.json?name=name` naming exactly this key. Anything short of that shows
 * nothing: a name is only shown when it checks out. The result goes into `#siegel-identity` (created after
 * `#siegel-status`) with `data-nip05` for tools and tests.
 */
import { type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { queryRelay } from '../../nostr/relay-query-portable.js';
import { MAX_RELAY_HINTS } from '../../nostr/relays.js';
import { nip05Url } from './browser-relays.js';

async function readProfileNip05(pubkey: string, relays: readonly string[]): Promise<string | undefined> {
  const accept = (event: NostrEvent) => event.kind === 0 && event.pubkey === pubkey && verifyEvent(event);
  // The lookup page joins the hints of its URL's nevent and of the page's block: still at most 5 relays.
  const answers = await Promise.all(
    relays
      .slice(0, MAX_RELAY_HINTS)
      .map((relay) =>
        queryRelay(relay, { kinds: [0], authors: [pubkey], limit: 1 }, { accept, timeoutMs: 8000 }),
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

async function confirmNip05(nip05: string, pubkey: string): Promise<boolean> {
  const at = nip05.lastIndexOf('@');
  const name = (at < 0 ? '_' : nip05.slice(0, at)).toLowerCase();
  const url = nip05Url(at < 0 ? nip05 : nip05.slice(at + 1), name);
  if (!url || !/^[a-z0-9._-]+$/.test(name)) return false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 8000);
  try {
    // NIP-05: redirects are not followed.
    const response = await fetch(url, { redirect: 'error', credentials: 'omit', signal: controller.signal });
    if (!response.ok) return false;
    const names = ((await response.json()) as { names?: Record<string, unknown> })?.names;
    return names?.[name] === pubkey;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Show the signer's NIP-05 name under the verdict when their profile names one that checks out. */
export async function showIdentity(pubkey: string, relays: readonly string[]): Promise<void> {
  if (relays.length === 0) return;
  const nip05 = await readProfileNip05(pubkey, relays);
  if (!nip05 || !(await confirmNip05(nip05, pubkey))) return;
  const status = document.getElementById('siegel-status');
  const line = document.createElement('p');
  line.id = 'siegel-identity';
  line.dataset.nip05 = nip05;
  line.textContent = `Signer’s NIP-05 name: ${nip05.replace(/^_@/, '')} (confirmed by its domain)`;
  status?.after(line);
}
