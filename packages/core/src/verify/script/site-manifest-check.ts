/**
 * The verify page's part of the site manifest check (issue 36): the evidence `judgePage` decides from,
 * gathered by the one gatherer every verifier shares (../manifest-evidence.ts) on the browser's own I/O.
 * Currency is asked of {@link DEFAULT_RELAYS} (the reader's side: the script's list, not the page's) and the
 * key's NIP-65 relays found there; the page's hints only add. A reader does not wait on relays that cannot
 * be reached: 2 s to connect, and once one of those relays answered, 200 ms more for the rest. Assets: the site's `verify/manifest.json`
 * names the page's event and its files (a blob layout's path list from the site, else from the manifest's
 * `server` tags); the script hashes what the page loads and, on a module-based page,
 * every JS chunk the manifest lists (a client-side router renders pages from them).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { getBlob, parseBlossomServers } from '../../net/blossom.js';
import { queryRelay } from '../../nostr/relay-query-portable.js';
import { allowRelayHintsFrom } from '../../nostr/relays.js';
import { createManifestEvidence } from '../manifest-evidence.js';
import type { ManifestEvidence } from '../rules.js';
import { DEFAULT_RELAYS } from './browser-relays.js';

/** Time for one relay, in ms, at most: a reader waits for the slowest relay still asked. */
const RELAY_TIMEOUT_MS = 6_000;
/** Time for a relay's connection to open, in ms: one that cannot be reached costs this, not the above. */
const RELAY_CONNECT_MS = 2_000;
/**
 * Once one of {@link DEFAULT_RELAYS} (or the key's NIP-65 relays) answered, the others get this many ms
 * more (NIP-5A's gateways: race, then linger 200 ms).
 */
const RELAY_LINGER_MS = 200;

/** The directory of the verify script (`…/verify/`), where the site's manifest files are. */
const verifyDirectory = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL('.', src) : new URL('.', location.href);
})();

const valid = (event: NostrEvent) => getEventHash(event) === event.id && verifyEvent(event);

/**
 * What the reader's browser finds about the page's site manifest, for `judgePage`.
 *
 * @example
 * ```ts
 * const manifest = await gatherSiteManifest(event, relays, bytes);
 * judgePage({ ...facts, manifest });
 * ```
 */
export function gatherSiteManifest(
  event: unknown,
  hints: string[],
  page: Uint8Array,
): Promise<ManifestEvidence | undefined> {
  const siteRoot = new URL('..', verifyDirectory);
  const gather = createManifestEvidence({
    relays: DEFAULT_RELAYS,
    hintAllowed: allowRelayHintsFrom(location.hostname),
    ask: (relay, filter, signal) =>
      queryRelay(relay, filter, {
        accept: valid,
        maxEvents: 10,
        timeoutMs: RELAY_TIMEOUT_MS,
        connectTimeoutMs: RELAY_CONNECT_MS,
        ...(signal ? { signal } : {}),
      }),
    lingerMs: RELAY_LINGER_MS,
    valid,
    async readSiteFile(path) {
      const url = new URL(path.slice(1).split('/').map(encodeURIComponent).join('/'), siteRoot);
      const response = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`\`${url.pathname}\` answered HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    // A layout-blob manifest's path list the site does not hold: from its `server` tags (BUD-01
    // `GET /<sha256>`, which Blossom servers answer to any origin), each taken only by Blossom's URL rule
    // (https, or http on loopback), bounded by the length the manifest names; the gatherer checks the hash.
    async readBlob(server, hash, bytes) {
      const [url] = parseBlossomServers([server], 'the manifest’s `server` tag');
      if (url === undefined) throw new Error('not fetched');
      return getBlob(url, hash, bytes, { timeoutMs: RELAY_TIMEOUT_MS });
    },
    sha256: (bytes) => bytesToHex(sha256(bytes)),
    chunks: true,
  });
  return gather(event, hints, location.href, page);
}
