export { tokensEqual } from '@siegel/core/auth';
export {
  jsEngine,
  type LoadSigningEngineOptions,
  loadSigningEngine,
  type SigningEngine,
} from '@siegel/core/crypto';
export { type AppOptions, createApp, DEFAULTS } from './app.js';
export { type AuditEntry, type AuditLog, noAuditLog, openAuditLog } from './audit-log.js';
export { BunkerError, type BunkerErrorCode, ERROR_STATUS } from './errors.js';
export { MAX_EVENT_BYTES, parseEventTemplate } from './event-template.js';
export { assertKeyName, isValidKeyName, KEY_NAME_PATTERN } from './key-name.js';
export {
  type CreateKeyOptions,
  type KeyCipherMethod,
  type KeyInfo,
  KeyStore,
  type KeyStoreOptions,
} from './key-store.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export {
  ConnectionStore,
  DEFAULT_URI_TTL_MS,
  type Nip46Client,
  type PendingUri,
} from './nip46/connection-store.js';
export { Nip46Service, type Nip46ServiceOptions } from './nip46/nip46-service.js';
export {
  DEFAULT_NIP46_KINDS,
  grantPermissions,
  type Nip46Permissions,
  parseKinds,
} from './nip46/permissions.js';
export {
  type KeyAccess,
  NIP46_KIND,
  type Nip46Stats,
  RemoteSigner,
  type RemoteSignerOptions,
} from './nip46/remote-signer.js';
export {
  DEFAULT_STRANGER_BUDGET,
  StrangerBudget,
  type StrangerBudgetOptions,
} from './nip46/stranger-budget.js';
export { type RunningBunker, type StartBunkerOptions, startBunker } from './server.js';
export type { Role } from './token-auth.js';
