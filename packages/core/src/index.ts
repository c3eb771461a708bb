// The user's API of @siegel/core: sign and verify a built site, the page hash and the signature block,
// the signers. What only other Siegel packages need lives on subpaths: `@siegel/core/integration` (build
// integrations), `@siegel/core/crypto` (the Schnorr engine), `@siegel/core/fs` (atomic writes),
// `@siegel/core/auth` (token comparison), `@siegel/core/relay` (the relay client). See the README, "How a run works", for the rooms of src/.

export {
  createGermanError,
  GERMAN_MESSAGES,
  isSiegelError,
  SiegelError,
  type SiegelErrorCode,
} from './errors.js';
export { NSITE_NAMED_KIND, NSITE_ROOT_KIND } from './manifest/site-manifest.js';
export { type BackoffOptions, backoffDelay } from './net/backoff.js';
export {
  type ConnectPolicy,
  PUBLIC_ADDRESSES_ONLY,
  type ResolvedAddress,
} from './net/connect-policy.js';
export {
  type OutboxEntry,
  outboxFileOf,
  readOutbox,
  retryDelayMs,
} from './nostr/publish-outbox.js';
export {
  formatPublishReport,
  type PublishReport,
  PublishSession,
  type PublishSessionOptions,
  type RelayPublishCount,
} from './nostr/publish-session.js';
export {
  type EventPublishResult,
  PUBLISH_DEFAULTS,
  type RelayAnswer,
  RelayPublisher,
  type RelayPublisherOptions,
} from './nostr/relay-publisher.js';
export { parseRelays, readRelaysFromEnv } from './nostr/relays.js';
export type { EventTemplate, NostrEvent, Signer } from './nostr/signer.js';
export { loadEnv, readSignerConfig, type SignerConfig, type ValueSource } from './options/env.js';
export {
  DEFAULTS,
  type SiegelLogger,
  type SignSiteOptions,
  signSiteOptionsSchema,
} from './options/options.js';
export {
  type AnalyzePageOptions,
  analyzePage,
  hashContent,
  hashPage,
  type PageAnalysis,
  readPageContent,
} from './page/analyze.js';
export { createPageEvent, PAGE_EVENT_KIND, type PageEventInput, pageUrl } from './page/page-event.js';
export { DEFAULT_SELECTOR } from './page/selector.js';
export {
  applySignatureBlock,
  BLOCK_END_MARKER,
  BLOCK_START_MARKER,
  type RenderSignatureBlockOptions,
  renderSignatureBlock,
} from './page/signature-block.js';
export { readSignatureBlock, type SignatureBlockInfo } from './page/signature-block-read.js';
export type { BlossomReport, BlossomServerReport } from './pipeline/publish-blossom.js';
export { type PublishSiteOptions, type PublishSiteReport, publishSite } from './pipeline/publish-site.js';
export { signSite } from './pipeline/sign-site.js';
export {
  type FormatSummaryOptions,
  formatSummary,
  type PageOutcome,
  type PageReport,
  type SignSummary,
} from './pipeline/summary.js';
export { checkSignedEvent } from './signer/check-events.js';
export { type CreateSignerOptions, createSigner } from './signer/create-signer.js';
export { HttpBunkerSigner, type HttpBunkerSignerOptions } from './signer/http-bunker-signer.js';
export { LocalKeySigner } from './signer/local-key-signer.js';
export { Nip46Signer, type Nip46SignerOptions, parseBunkerUri } from './signer/nip46-signer.js';
export { toTerminalSafe } from './text/terminal-text.js';
export { EXTENSION_README_URL, verifyByUrlLink } from './verify/check-links.js';
export {
  type CheckPageAtUrlOptions,
  checkPageAtUrl,
  type PageAtUrl,
  type SignerNip05,
} from './verify/page-at-url.js';
export {
  createProblem,
  decideVerdict,
  describeCoverage,
  type EventChecks,
  type EventEvidence,
  type FileJudgeInput,
  isSameAddress,
  type JudgeInput,
  type Judgement,
  judgeFileEvent,
  judgePage,
  normalizeAddress,
  type PageReading,
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
  type Severity,
  type Verdict,
} from './verify/rules.js';
export { SIGNED_CONTENT_FRAME_HEAD } from './verify/script/show-content.js';
export {
  readVerifyScript,
  renderVerifyPage,
  VERIFY_SCRIPT_NAME,
  type VerifyPageInput,
} from './verify/verify-page.js';
export {
  formatVerifyReport,
  formatVerifyReportJson,
  type PageVerification,
  type VerifyReport,
  type VerifySiteOptions,
  verifySite,
} from './verify/verify-site.js';
