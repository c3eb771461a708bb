import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseRelays } from '@siegel/core/relay';
import { dataDirOf } from './cli-keys.js';
import { BunkerError } from './errors.js';
import { consoleLogger } from './logger.js';
import { DEFAULT_NIP46_KINDS, parseKinds } from './nip46/permissions.js';
import { passphraseFromEnv } from './passphrase-input.js';
import { startBunker } from './server.js';
import { MIN_TOKEN_LENGTH } from './token-auth.js';

/** Starts the one line `start` prints on stdout once listening: `SIEGEL_BUNKER_READY {"url",…}`. */
export const READY_PREFIX = 'SIEGEL_BUNKER_READY';

/** How long shutdown waits for requests in flight before exiting anyway. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * `siegel-bunker start`: serve the bunker until SIGINT/SIGTERM.
 *
 * Without `BUNKER_API_TOKEN` and `BUNKER_ADMIN_TOKEN` it refuses to start, except with `--dev`, which
 * generates the missing tokens and a `default` key, prints the tokens once, and keeps its data in a
 * throwaway directory unless `--data-dir` is given.
 */
export async function runStartCommand(
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '7777' },
      'data-dir': { type: 'string' },
      dev: { type: 'boolean', default: false },
      'auto-lock': { type: 'string' },
      relay: { type: 'string', multiple: true },
      'nip46-kinds': { type: 'string' },
      'uri-expiry': { type: 'string' },
      'print-uri': { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new BunkerError('invalid_request', `\`--port\` must be a port number, got \`${values.port}\``);
  }
  const autoLockText = values['auto-lock'] ?? env.BUNKER_AUTO_LOCK_MINUTES;
  const autoLockMinutes = autoLockText === undefined || autoLockText === '' ? 0 : Number(autoLockText);
  if (!Number.isFinite(autoLockMinutes) || autoLockMinutes < 0) {
    throw new BunkerError(
      'invalid_request',
      `The auto-lock period must be a number of minutes, got \`${autoLockText}\``,
    );
  }

  // `--relay` (repeatable) wins over BUNKER_RELAYS; one rule for relay URLs in all of Siegel.
  const relays = values.relay?.length
    ? parseRelays(values.relay, '--relay')
    : parseRelays((env.BUNKER_RELAYS ?? '').split(','), 'BUNKER_RELAYS');
  const kindsText = values['nip46-kinds'] ?? env.BUNKER_NIP46_KINDS;
  const nip46Kinds =
    kindsText === undefined || kindsText === ''
      ? [...DEFAULT_NIP46_KINDS]
      : parseKinds(kindsText, values['nip46-kinds'] === undefined ? 'BUNKER_NIP46_KINDS' : '--nip46-kinds');

  const expiryText = values['uri-expiry'] ?? env.BUNKER_NIP46_URI_MINUTES;
  const uriMinutes = expiryText === undefined || expiryText === '' ? 10 : Number(expiryText);
  if (!Number.isFinite(uriMinutes) || uriMinutes <= 0) {
    throw new BunkerError(
      'invalid_request',
      `The connection URI expiry must be a positive number of minutes, got \`${expiryText}\``,
    );
  }

  const dev = values.dev;
  let apiToken = env.BUNKER_API_TOKEN ?? '';
  let adminToken = env.BUNKER_ADMIN_TOKEN ?? '';
  const printed: string[] = [];
  if (dev && !apiToken) {
    apiToken = newToken();
    printed.push(`BUNKER_API_TOKEN=${apiToken}`);
  }
  if (dev && !adminToken) {
    adminToken = newToken();
    printed.push(`BUNKER_ADMIN_TOKEN=${adminToken}`);
  }
  checkTokens(apiToken, adminToken);

  const throwaway = dev && values['data-dir'] === undefined;
  const dataDir = throwaway
    ? await mkdtemp(join(tmpdir(), 'siegel-bunker-dev-'))
    : dataDirOf(values['data-dir'], env);
  const givenPassphrase = await passphraseFromEnv(env);
  // In dev mode a generated passphrase encrypts the generated `default` key (printed when it can outlive
  // this run, i.e. with --data-dir).
  const passphrase = dev && givenPassphrase === undefined ? newToken() : givenPassphrase;

  const logger = consoleLogger;
  const bunker = await startBunker({
    host: values.host,
    port,
    dataDir,
    apiToken,
    adminToken,
    autoLockMs: autoLockMinutes * 60_000,
    ...(givenPassphrase !== undefined && { passphrase: givenPassphrase }),
    relays,
    nip46Defaults: { kinds: nip46Kinds, nip44: false, nip04: false },
    nip46UriTtlMs: uriMinutes * 60_000,
    logger,
  }).catch(async (error: unknown) => {
    if (throwaway) await rm(dataDir, { recursive: true, force: true });
    throw portInUse(error, values.host, port) ?? error;
  });
  if (dev && !bunker.store.list().some((key) => key.name === 'default') && passphrase !== undefined) {
    await bunker.store.create('default', { passphrase });
    if (!throwaway && givenPassphrase === undefined) printed.push(`BUNKER_PASSPHRASE=${passphrase}`);
    if (throwaway && givenPassphrase === undefined) {
      // Its passphrase is shown nowhere: locked (the dashboard's button, auto-lock), it would stay locked.
      bunker.store.keepUnlocked(
        'default',
        'it is the throwaway key of this `--dev` bunker and its passphrase was never shown, so it could not be unlocked again. It stays unlocked until the bunker stops and its data is deleted.',
      );
      if (autoLockMinutes > 0) logger.info('the development key `default` is never auto-locked');
    }
  } else if (dev && bunker.store.list().find((key) => key.name === 'default')?.locked) {
    logger.warn('key `default` is locked: set BUNKER_PASSPHRASE, or unlock it at /admin');
  }

  // The signal handlers go in before the ready line: a supervisor (or a test) may send SIGTERM the moment
  // it reads that line, and without a handler Node would die at once instead of shutting down.
  const exited = new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      // Ctrl-C in a terminal sends SIGINT to the whole process group, and a supervisor in it (`npm run demo`)
      // sends SIGTERM as well: one shutdown, one line.
      if (stopping) return;
      stopping = true;
      logger.info(`${signal}: shutting down`);
      const force = setTimeout(() => resolve(1), SHUTDOWN_GRACE_MS);
      force.unref();
      bunker
        .close()
        .then(() => (throwaway ? rm(dataDir, { recursive: true, force: true }) : undefined))
        .then(
          () => resolve(0),
          (error: unknown) => {
            logger.error(`shutdown: ${String(error)}`);
            resolve(1);
          },
        );
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });

  const out = process.stdout;
  if (dev) {
    out.write('Development bunker. These values are shown once; keep them out of version control:\n');
    for (const line of printed) out.write(`  ${line}\n`);
    out.write(`  data directory: ${dataDir}${throwaway ? ' (deleted on exit)' : ''}\n`);
  }
  out.write(`siegel-bunker listening on ${bunker.url} (signing engine: ${bunker.engine})\n`);
  if (bunker.nip46) {
    out.write(
      `NIP-46 remote signer on ${relays.join(', ')}: make a connection URI at ${bunker.url}/admin or with POST /api/nip46/uri (each connects one client, within ${uriMinutes} min)\n`,
    );
    // A URI's secret authorises whoever reads it: never into a log, only onto a terminal (or a dev run's output).
    if (values['print-uri'] && !dev && !out.isTTY) {
      logger.warn(
        '--print-uri prints only on a terminal (stdout is not one): make the URI at /admin instead',
      );
    } else if (values['print-uri'] || dev) {
      out.write(`Connection URIs, each for one client, within ${uriMinutes} min:\n`);
      for (const key of bunker.store.list()) {
        if (key.locked) out.write(`  ${key.name}: locked (make its URI at /admin once unlocked)\n`);
        else out.write(`  ${key.name}: ${await bunker.nip46.connectionUri(key.name)}\n`);
      }
    }
  }
  const ready: Record<string, unknown> = {
    url: bunker.url,
    keys: bunker.store.list().map((key) => key.name),
  };
  if (dev) {
    const key = bunker.store.list().find((k) => k.name === 'default');
    Object.assign(ready, { apiToken, adminToken, keyName: 'default', pubkey: key?.pubkey });
  }
  // One machine-readable line for scripts and tests.
  out.write(`${READY_PREFIX} ${JSON.stringify(ready)}\n`);
  if (values.host !== '127.0.0.1' && values.host !== 'localhost' && values.host !== '::1') {
    logger.warn(`listening on \`${values.host}\`, not only on loopback: put TLS in front of it`);
  }

  return exited;
}

function checkTokens(apiToken: string, adminToken: string): void {
  const missing = [!apiToken && 'BUNKER_API_TOKEN', !adminToken && 'BUNKER_ADMIN_TOKEN'].filter(Boolean);
  if (missing.length > 0) {
    throw new BunkerError(
      'invalid_request',
      `${missing.join(' and ')} not set: refusing to start without tokens. Set them (e.g. \`openssl rand -base64 32\`), or run \`siegel-bunker start --dev\` for a throwaway development bunker.`,
    );
  }
  for (const [name, token] of [
    ['BUNKER_API_TOKEN', apiToken],
    ['BUNKER_ADMIN_TOKEN', adminToken],
  ] as const) {
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new BunkerError(
        'invalid_request',
        `${name} is too short: use at least ${MIN_TOKEN_LENGTH} characters`,
      );
    }
  }
  if (apiToken === adminToken)
    throw new BunkerError('invalid_request', 'BUNKER_API_TOKEN and BUNKER_ADMIN_TOKEN must differ');
}

/**
 * The one line for a port another process holds (Node's bare `listen EADDRINUSE` names neither the flag nor
 * a way out), or `undefined` for any other error.
 */
function portInUse(error: unknown, host: string, port: number): BunkerError | undefined {
  if ((error as { code?: unknown })?.code !== 'EADDRINUSE') return undefined;
  return new BunkerError(
    'invalid_request',
    `port ${port} on ${host} is in use by another process: stop it, or start on another port with \`--port\` (e.g. \`--port ${port === 65535 ? port - 1 : port + 1}\`; \`--port 0\` picks a free one)`,
  );
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}
