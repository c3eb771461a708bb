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
export { type CreateKeyOptions, type KeyInfo, KeyStore, type KeyStoreOptions } from './key-store.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export { type RunningBunker, type StartBunkerOptions, startBunker } from './server.js';
export type { Role } from './token-auth.js';
