export { DEFAULTS, optionsSchema, parseOptions, type SiegelEleventyOptions } from './options.js';
export {
  type EleventyConfigLike,
  type EleventyEventArgs,
  PLUGIN_NAME,
  siegel,
  siegel as default,
} from './plugin.js';
