export {
  DEFAULTS,
  type EleventyConfigLike,
  type EleventyEventArgs,
  optionsSchema,
  PLUGIN_NAME,
  parseOptions,
  type SiegelEleventyOptions,
  siegel,
  siegel as default,
} from './plugin.js';
