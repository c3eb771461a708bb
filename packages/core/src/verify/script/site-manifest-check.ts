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
import type { ManifestEvidence } from '../rules.js';
import { DEFAULT_RELAYS } from './browser-relays.js';
import { createBrowserManifestGatherer } from './manifest-gatherer.js';

/** The directory of the verify script (`…/verify/`), where the site's manifest files are. */
const verifyDirectory = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL('.', src) : new URL('.', location.href);
})();

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
  const gather = createBrowserManifestGatherer({
    relays: DEFAULT_RELAYS,
    pageHost: location.hostname,
    siteRoot: new URL('..', verifyDirectory),
  });
  return gather(event, hints, location.href, page);
}
