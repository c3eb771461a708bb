export {
  createGermanError,
  GERMAN_MESSAGES,
  isSiegelError,
  SiegelError,
  type SiegelErrorCode,
} from './errors.js';
export { HttpBunkerSigner, type HttpBunkerSignerOptions } from './http-bunker-signer.js';
export { LocalKeySigner } from './local-key-signer.js';
export type { EventTemplate, NostrEvent, Signer } from './signer.js';
export {
  type CreateSignerOptions,
  createSigner,
  loadEnv,
  readSignerConfig,
  SIGNER_DEFAULTS,
  type SignerConfig,
} from './signer-config.js';
