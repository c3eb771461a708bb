export { findRewritersAfter, formatRewriterWarning, KNOWN_HTML_REWRITERS } from './compressor-check.js';
export {
  DEFAULTS,
  INTEGRATION_NAME,
  optionsSchema,
  parseOptions,
  type SiegelAstroOptions,
  siegel,
  siegel as default,
} from './integration.js';
