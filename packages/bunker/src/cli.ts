#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { runKeysCommand } from './cli-keys.js';
import { runStartCommand } from './cli-start.js';
import { isUsageError } from './usage-error.js';

/** `siegel-bunker --help`. */
export const USAGE = `Usage:
  siegel-bunker start [--host 127.0.0.1] [--port 7777] [--data-dir DIR] [--dev] [--auto-lock MINUTES]
                      [--relay URL]... [--nip46-kinds 1063,…] [--uri-expiry MINUTES] [--print-uri]
  siegel-bunker keys add NAME [--generate | --import KEY|-] [--passphrase-file F] [--data-dir DIR]
  siegel-bunker keys list [--data-dir DIR] [--json]
  siegel-bunker --version | --help

Environment:
  BUNKER_API_TOKEN        Bearer token for listing keys and signing (required unless --dev)
  BUNKER_ADMIN_TOKEN      Bearer token for managing keys and the /admin dashboard (required unless --dev)
  BUNKER_DATA_DIR         data directory (default .bunker/)
  BUNKER_PASSPHRASE       unlock at start every key this passphrase opens
  BUNKER_PASSPHRASE_FILE  the same, read from a file
  BUNKER_AUTO_LOCK_MINUTES  lock keys idle this long (default: never)
  BUNKER_RELAYS           comma-separated relays: be a NIP-46 remote signer there (--relay wins)
  BUNKER_NIP46_KINDS      event kinds a new NIP-46 connection may sign (default 1063,15128,35128)
  BUNKER_NIP46_URI_MINUTES  how long an unused connection URI works (default 10; --uri-expiry wins)

--print-uri prints a connection URI per unlocked key at start, on a terminal only (never into a log).
`;

/** The version in this package's own package.json (`dist/cli.js` → `../package.json`), read when asked. */
function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return runStartCommand(rest, process.env);
    case 'keys':
      return runKeysCommand(rest, process.env);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    case '-v':
    case '--version':
      process.stdout.write(`${readVersion()}\n`);
      return 0;
    default:
      process.stderr.write(`siegel-bunker: unknown command \`${command}\`\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Usage errors (unknown option or subcommand, missing value or NAME) exit 2; everything else, e.g. a
    // refused start, exits 1.
    process.stderr.write(`siegel-bunker: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = isUsageError(error) ? 2 : 1;
  },
);
