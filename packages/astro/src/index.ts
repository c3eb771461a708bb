export { findRewritersAfter, formatRewriterWarning, KNOWN_HTML_REWRITERS } from './compressor-check.js';
export { INTEGRATION_NAME, siegel, siegel as default } from './integration.js';
export { DEFAULTS, optionsSchema, parseOptions, type SiegelAstroOptions } from './options.js';
