export { siegel, siegel as default, PLUGIN_NAME, type EleventyConfigLike, type EleventyEventArgs } from './plugin.js';
export { DEFAULTS, optionsSchema, parseOptions, type SiegelEleventyOptions } from './options.js';
