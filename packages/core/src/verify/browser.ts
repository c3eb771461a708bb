/**
 * `@siegel/core/browser`: what a verifier running in a browser gathers its facts with — the verify page's
 * script and the browser extension's background worker share it, so neither holds a copy. Reading a served
 * page (served-page.ts), the event from relays with the CLI's bounds (relay-query-portable.ts, at most
 * `MAX_RELAY_HINTS` hints by core's address rules), the site manifest (manifest-gatherer.ts) and the
 * signer's NIP-05 (identity.ts). No Node built-in and no DOM at import time: it loads in a service worker.
 * The verdict stays the rule book's (`@siegel/core/rules`).
 */

export { isLoopbackHost } from '../net/address-policy.js';
export {
  describeRelayMiss,
  fetchEventFromRelays,
  queryRelay,
  type RelayAnswer,
  RelayPool,
} from '../nostr/relay-query-portable.js';
export { allowRelayHintsFrom, MAX_RELAY_HINTS, parseRelays, pickRelayHints } from '../nostr/relays.js';
export { readSignatureBlock, type SignatureBlockInfo } from '../page/signature-block-read.js';
export type { KnownLoads } from './manifest-evidence.js';
export { DEFAULT_RELAYS, nip05Url } from './script/browser-relays.js';
export { readSignerNip05, resolveNip05 } from './script/identity.js';
export {
  type BrowserManifestOptions,
  browserManifestIo,
  createBrowserManifestGatherer,
  RELAY_CONNECT_MS,
  RELAY_TIMEOUT_MS,
} from './script/manifest-gatherer.js';
export { hashText, readServedPage, type ServedPage } from './script/served-page.js';
