export { type BuildSigningOptions, handleSigningError, runBuildSigning } from './build-signing.js';
export { compileSelector } from './css-selector.js';
export {
  createGermanError,
  GERMAN_MESSAGES,
  isSiegelError,
  SiegelError,
  type SiegelErrorCode,
} from './errors.js';
export { findPages } from './find-pages.js';
export { writeFileAtomic } from './fs/atomic-write.js';
export { HttpBunkerSigner, type HttpBunkerSignerOptions } from './http-bunker-signer.js';
export {
  INTEGRATION_DEFAULTS,
  type IntegrationContext,
  type IntegrationOptions,
  integrationOptionsSchema,
  parseIntegrationOptions,
  toSignSiteOptions,
} from './integration-options.js';
export { LocalKeySigner } from './local-key-signer.js';
export { type AnalyzePageOptions, analyzePage, hashPage, type PageAnalysis } from './page-analysis.js';
export { createPageEvent, PAGE_EVENT_KIND, type PageEventInput, pageUrl } from './page-event.js';
export { hashContent } from './page-hash.js';
export { DEFAULT_SELECTOR, readPageContent } from './page-parse.js';
export { parseRelays } from './relay-list.js';
export {
  CACHE_SPEC,
  CACHE_VERSION,
  fingerprintFile,
  type ReadSignCacheResult,
  readSignCache,
  type SignCache,
  type SignCacheEntry,
  type SignCacheHeader,
  writeSignCache,
} from './sign-cache.js';
export { signSite } from './sign-site.js';
export {
  type ResolvedSignSiteOptions,
  resolveSignSiteOptions,
  SIGN_SITE_DEFAULTS,
  type SiegelLogger,
  type SignSiteOptions,
} from './sign-site-options.js';
export {
  type FormatSummaryOptions,
  formatSummary,
  type PageOutcome,
  type PageReport,
  type SignSummary,
} from './sign-summary.js';
export {
  applySignatureBlock,
  BLOCK_END_MARKER,
  BLOCK_START_MARKER,
  type RenderSignatureBlockOptions,
  renderSignatureBlock,
} from './signature-block.js';
export { readSignatureBlock, type SignatureBlockInfo } from './signature-block-read.js';
export type { EventTemplate, NostrEvent, Signer } from './signer.js';
export {
  type CreateSignerOptions,
  createSigner,
  loadEnv,
  readSignerConfig,
  SIGNER_DEFAULTS,
  type SignerConfig,
} from './signer-config.js';
export {
  readVerifyScript,
  renderVerifyPage,
  VERIFY_SCRIPT_NAME,
  type VerifyPageInput,
} from './verify-page.js';
export {
  formatVerifyReport,
  type PageVerdict,
  type PageVerification,
  type VerifyReport,
  type VerifySiteOptions,
  verifySite,
} from './verify-site.js';
