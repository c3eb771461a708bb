/**
 * The site manifest gatherer of a browser verifier (the verify page, the extension's background): the one
 * gatherer every verifier shares (../manifest-evidence.ts) on the browser's own I/O — `WebSocket` relays
 * with the reader's bounds, `fetch` for the site's files, Blossom for a blob layout's path list. A reader
 * does not wait on relays that cannot be reached: 2 s to connect, and once one relay of the reader's
 * answered, 200 ms more for the rest.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { getEventHash, type NostrEvent, verifyEvent } from 'nostr-tools/pure';
import { getBlob, parseBlossomServers } from '../../net/blossom.js';
import { queryRelay, type RelayPool } from '../../nostr/relay-query-portable.js';
import { allowRelayHintsFrom } from '../../nostr/relays.js';
import { createManifestEvidence, type ManifestEvidenceIo } from '../manifest-evidence.js';
import type { ManifestEvidence } from '../rules.js';

/** Time for one relay, in ms, at most: a reader waits for the slowest relay still asked. */
export const RELAY_TIMEOUT_MS = 6_000;
/** Time for a relay's connection to open, in ms: one that cannot be reached costs this, not the above. */
export const RELAY_CONNECT_MS = 2_000;
/** Once one of the reader's relays answered, the others get this many ms more (NIP-5A: race, then linger 200 ms). */
const RELAY_LINGER_MS = 200;

const valid = (event: NostrEvent) => getEventHash(event) === event.id && verifyEvent(event);

/** Where a browser verifier asks, for {@link createBrowserManifestGatherer}. */
export interface BrowserManifestOptions {
  /** The reader's own relays (the verify page's default list; the extension's options). */
  relays: string[];
  /** The host name of the page checked: local or private relay hints only when it is itself local. */
  pageHost: string;
  /** The site's root (`https://example.com/docs/`), against which manifest paths are fetched. */
  siteRoot: URL;
  /** `fetch`'s `credentials` for the site's files (default `same-origin`; the extension sends none: `omit`). */
  credentials?: RequestCredentials;
  /** Relay connections kept between queries (the extension's, for every check); default: one per query. */
  pool?: RelayPool;
}

/**
 * A gatherer of what a browser finds about a page's site manifest, for `judgePage`.
 *
 * @example
 * ```ts
 * const gather = createBrowserManifestGatherer({ relays, pageHost: 'example.com', siteRoot });
 * judgePage({ ...facts, manifest: await gather(event, hints, pageUrl, bytes) });
 * ```
 */
export function createBrowserManifestGatherer(
  options: BrowserManifestOptions,
): (
  event: unknown,
  hints: string[],
  page: string,
  bytes: Uint8Array,
) => Promise<ManifestEvidence | undefined> {
  const gather = createManifestEvidence(browserManifestIo(options));
  // The site root is where the site's copy is read in any case: its read starts with the relays'.
  return (event, hints, page, bytes) => gather(event, hints, page, bytes, options.siteRoot.href);
}

/**
 * The browser's I/O for the one manifest gathering (`createManifestEvidence`), for a caller that wraps it —
 * the extension records what it reads as evidence (`@siegel/core/evidence`'s `gatherManifest`).
 *
 * @example
 * ```ts
 * const gather = recorder.gatherManifest(browserManifestIo({ relays, pageHost, siteRoot, credentials: 'omit' }));
 * ```
 */
export function browserManifestIo(options: BrowserManifestOptions): ManifestEvidenceIo {
  const { siteRoot } = options;
  return {
    relays: options.relays,
    hintAllowed: allowRelayHintsFrom(options.pageHost),
    ask: (relay, filter, signal) =>
      queryRelay(relay, filter, {
        accept: valid,
        maxEvents: 10,
        timeoutMs: RELAY_TIMEOUT_MS,
        connectTimeoutMs: RELAY_CONNECT_MS,
        ...(signal ? { signal } : {}),
        ...(options.pool ? { pool: options.pool } : {}),
      }),
    lingerMs: RELAY_LINGER_MS,
    valid,
    async readSiteFile(path) {
      const url = new URL(path.slice(1).split('/').map(encodeURIComponent).join('/'), siteRoot);
      const response = await fetch(url, {
        cache: 'no-store',
        credentials: options.credentials ?? 'same-origin',
      });
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
  };
}
