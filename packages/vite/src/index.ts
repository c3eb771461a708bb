export { DEFAULTS, optionsSchema, PLUGIN_NAME, parseOptions, type SiegelViteOptions } from './options.js';
export { siegel, siegel as default } from './plugin.js';
