export { siegel, siegel as default, INTEGRATION_NAME } from './integration.js';
export { DEFAULTS, optionsSchema, parseOptions, type SiegelAstroOptions } from './options.js';
export { KNOWN_HTML_REWRITERS, findRewritersAfter, formatRewriterWarning } from './compressor-check.js';
