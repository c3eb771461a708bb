/** Where the bunker writes what it does. Never given a secret, a passphrase or a token. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger writing `siegel-bunker: …` lines to stderr. */
export const consoleLogger: Logger = {
  info: (message) => console.error(`siegel-bunker: ${message}`),
  warn: (message) => console.error(`siegel-bunker: warning: ${message}`),
  error: (message) => console.error(`siegel-bunker: error: ${message}`),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
