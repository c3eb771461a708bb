import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadSigningEngine } from '@siegel/core/crypto';
import { BunkerError } from './errors.js';
import { KeyStore } from './key-store.js';
import { consoleLogger } from './logger.js';
import { passphraseFromEnv, promptPassphrase, readPassphraseFile, readStdin } from './passphrase-input.js';
import { UsageError } from './usage-error.js';

/** Default data directory, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.bunker';

/**
 * `siegel-bunker keys add|list`: manage the keys of a data directory directly (a running bunker reads
 * them at its next start).
 */
export async function runKeysCommand(
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'add') return addKey(rest, env);
  if (sub === 'list') return listKeys(rest, env);
  throw new UsageError(`Unknown \`keys\` command \`${sub ?? ''}\`: use \`keys add\` or \`keys list\``);
}

async function addKey(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      generate: { type: 'boolean' },
      import: { type: 'string' },
      'passphrase-file': { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0)
    throw new UsageError('Usage: siegel-bunker keys add NAME [--generate | --import KEY]');
  if (values.generate && values.import !== undefined) {
    throw new UsageError('Give either `--generate` or `--import`, not both');
  }
  const imported = values.import === '-' ? await readStdin() : values.import;
  const passphrase = values['passphrase-file']
    ? await readPassphraseFile(values['passphrase-file'])
    : ((await passphraseFromEnv(env)) ?? (await askNewPassphrase()));
  const store = await KeyStore.open({
    dataDir: dataDirOf(values['data-dir'], env),
    engine: await loadSigningEngine(),
  });
  try {
    const key = await store.create(name, { passphrase, ...(imported !== undefined && { import: imported }) });
    process.stdout.write(
      `${imported === undefined ? 'generated' : 'imported'} key \`${key.name}\`: ${key.npub}\n`,
    );
  } finally {
    store.close();
  }
  return 0;
}

async function askNewPassphrase(): Promise<string> {
  const first = await promptPassphrase('Passphrase for the new key: ');
  const second = await promptPassphrase('Repeat it: ');
  if (first !== second) throw new BunkerError('invalid_request', 'The passphrases differ');
  return first;
}

async function listKeys(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
  });
  const dataDir = dataDirOf(values['data-dir'], env);
  if (!existsSync(dataDir)) {
    process.stdout.write(values.json ? '[]\n' : `no keys (no data directory \`${dataDir}\`)\n`);
    return 0;
  }
  const store = await KeyStore.open({
    dataDir,
    engine: await loadSigningEngine(),
    logger: consoleLogger,
  });
  const keys = store.list();
  store.close();
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify(
        keys.map(({ locked: _, ...key }) => key),
        null,
        2,
      )}\n`,
    );
  } else if (keys.length === 0) {
    process.stdout.write('no keys\n');
  } else {
    for (const key of keys) {
      process.stdout.write(`${key.name}\t${key.npub}\t${new Date(key.created_at * 1000).toISOString()}\n`);
    }
  }
  return 0;
}

/** `--data-dir`, else `BUNKER_DATA_DIR`, else `.bunker`. */
export function dataDirOf(flag: string | undefined, env: Record<string, string | undefined>): string {
  return flag ?? (env.BUNKER_DATA_DIR || DEFAULT_DATA_DIR);
}
