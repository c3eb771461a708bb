export {
  DEFAULTS,
  optionsSchema,
  PLUGIN_NAME,
  parseOptions,
  type SiegelViteOptions,
  siegel,
  siegel as default,
} from './plugin.js';
