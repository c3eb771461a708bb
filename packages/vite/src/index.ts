export { DEFAULTS, optionsSchema, parseOptions, type SiegelViteOptions } from './options.js';
export { PLUGIN_NAME, siegel, siegel as default } from './plugin.js';
