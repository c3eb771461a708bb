export {
  DEFAULTS,
  type EleventyConfigLike,
  type EleventyEventArgs,
  type EleventyResult,
  optionsSchema,
  PLUGIN_NAME,
  parseOptions,
  type SiegelEleventyOptions,
  siegel,
  siegel as default,
} from './plugin.js';
export { checkEleventyVersion, ELEVENTY_VERSION_RANGE, type VersionCheckable } from './version-check.js';
