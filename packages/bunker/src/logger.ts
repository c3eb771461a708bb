import { toTerminalSafe } from '@siegel/core/text';

/** Where the bunker writes what it does. Never given a secret, a passphrase or a token. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * A logger writing `siegel-bunker: …` lines to stderr, through core's `toTerminalSafe`: a client's or a
 * relay's words in a message cannot drive the terminal or the log viewer.
 */
export const consoleLogger: Logger = {
  info: (message) => console.error(`siegel-bunker: ${toTerminalSafe(message)}`),
  warn: (message) => console.error(`siegel-bunker: warning: ${toTerminalSafe(message)}`),
  error: (message) => console.error(`siegel-bunker: error: ${toTerminalSafe(message)}`),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
