export { siegel, siegel as default, PLUGIN_NAME } from './plugin.js';
export { DEFAULTS, optionsSchema, parseOptions, type SiegelViteOptions } from './options.js';
