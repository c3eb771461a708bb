import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { loadSigningEngine } from '@siegel/core/crypto';
import { createApp } from './app.js';
import { type AuditLog, openAuditLog } from './audit-log.js';
import { prepareDataDir } from './data-dir.js';
import { removeStaleTempFiles } from './key-file.js';
import { KeyStore } from './key-store.js';
import { consoleLogger, type Logger } from './logger.js';
import { Nip46Service } from './nip46/nip46-service.js';
import { DEFAULT_NIP46_KINDS, type Nip46Permissions } from './nip46/permissions.js';
import type { StrangerBudgetOptions } from './nip46/stranger-budget.js';

/** How long `close()` lets requests in flight finish before it closes every connection. */
const CLOSE_GRACE_MS = 3000;

/** Options of {@link startBunker}. */
export interface StartBunkerOptions {
  /** Interface to listen on. Default: `127.0.0.1` (loopback only). */
  host?: string;
  /** Port; `0` picks a free one. Default: `7777`. */
  port?: number;
  /** Data directory (keys, audit log). */
  dataDir: string;
  apiToken: string;
  adminToken: string;
  /** Unlock at start every key this passphrase opens. */
  passphrase?: string;
  /** Lock keys idle this long (ms). Default: `0` = never. */
  autoLockMs?: number;
  /** Most templates in one batch. Default: `1000`. */
  maxBatch?: number;
  /** Largest request body in bytes. Default: 8 MiB. */
  maxBodyBytes?: number;
  /** Default: `siegel-bunker: …` lines on stderr. */
  logger?: Logger;
  /**
   * Relays to be a NIP-46 remote signer on (already checked with `parseRelays` of `@siegel/core`).
   * Default: none = NIP-46 off.
   */
  relays?: readonly string[];
  /** What a new NIP-46 connection may do. Default: sign kinds 1063, 15128 and 35128 (pages, files, site manifests), no encryption methods. */
  nip46Defaults?: Nip46Permissions;
  /** How long an unused NIP-46 connection URI works (ms). Default: 10 minutes. */
  nip46UriTtlMs?: number;
  /** What strangers on the relays may cost. Default: `DEFAULT_STRANGER_BUDGET`. */
  nip46Budget?: StrangerBudgetOptions;
}

/** A running bunker. */
export interface RunningBunker {
  /** Base address, e.g. `http://127.0.0.1:7777`. */
  url: string;
  port: number;
  store: KeyStore;
  /** `wasm` or `js`: the signing engine in use. */
  engine: string;
  /** The NIP-46 side (a worker thread), when relays were given. */
  nip46?: Nip46Service;
  /**
   * Stop listening, let requests in flight finish (up to 3 s, then every connection is closed), wipe
   * unlocked keys, close the audit log.
   */
  close(): Promise<void>;
}

/**
 * Open the data directory, auto-unlock with the passphrase if given, and serve the bunker.
 *
 * @throws {BunkerError} `invalid_request` when the data directory (or its `keys/`) is writable by group or
 *   others.
 * @throws when the data directory cannot be opened or the port cannot be bound (e.g. `EADDRINUSE`).
 * @example
 * ```ts
 * const bunker = await startBunker({ dataDir: '.bunker', apiToken, adminToken, port: 0 });
 * console.log(bunker.url);
 * await bunker.close();
 * ```
 */
export async function startBunker(options: StartBunkerOptions): Promise<RunningBunker> {
  const logger = options.logger ?? consoleLogger;
  const engine = await loadSigningEngine({
    onFallback: (reason) =>
      logger.warn(`WebAssembly signing unavailable (${String(reason)}); signing with pure JavaScript`),
  });
  // Checked (and made 0700 when new) before the audit log is opened in it.
  await prepareDataDir(options.dataDir);
  // Left by a write that was killed (kill -9, power cut); only `start` clears them, since `keys add`
  // may run beside a bunker that is writing one right now.
  const stale = await removeStaleTempFiles(options.dataDir);
  if (stale.length > 0) logger.info(`removed ${stale.length} temp file(s) left by an interrupted write`);
  const audit = await openAuditLog(join(options.dataDir, 'audit.log'));
  try {
    const store = await KeyStore.open({
      dataDir: options.dataDir,
      engine,
      audit,
      logger,
      autoLockMs: options.autoLockMs ?? 0,
    });
    let nip46: Nip46Service | undefined;
    try {
      if (options.relays && options.relays.length > 0) {
        nip46 = await Nip46Service.start({
          dataDir: options.dataDir,
          relays: options.relays,
          store,
          defaults: options.nip46Defaults ?? { kinds: [...DEFAULT_NIP46_KINDS], nip44: false, nip04: false },
          logger,
          ...(options.nip46UriTtlMs !== undefined && { uriTtlMs: options.nip46UriTtlMs }),
          ...(options.nip46Budget !== undefined && { budget: options.nip46Budget }),
        });
      }
      return await listen(store, audit, engine.name, options, logger, nip46);
    } catch (error) {
      store.close();
      await nip46?.close();
      throw error;
    }
  } catch (error) {
    await audit.close();
    throw error;
  }
}

async function listen(
  store: KeyStore,
  audit: AuditLog,
  engineName: string,
  options: StartBunkerOptions,
  logger: Logger,
  nip46: Nip46Service | undefined,
): Promise<RunningBunker> {
  if (options.passphrase !== undefined) {
    const { unlocked, failed } = store.unlockAll(options.passphrase);
    if (unlocked.length > 0) logger.info(`unlocked with the start passphrase: ${unlocked.join(', ')}`);
    if (failed.length > 0)
      logger.warn(`the start passphrase does not open: ${failed.join(', ')} (still locked)`);
  }
  const app = createApp({
    store,
    apiToken: options.apiToken,
    adminToken: options.adminToken,
    ...(options.maxBatch !== undefined && { maxBatch: options.maxBatch }),
    ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }),
    ...(nip46 !== undefined && { nip46 }),
    logger,
  });
  const host = options.host ?? '127.0.0.1';
  const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 7777 });
  // A port that cannot be bound rejects here; `startBunker` then closes the store and the worker.
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    store,
    engine: engineName,
    ...(nip46 !== undefined && { nip46 }),
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive connections would hold `close` open; requests in flight still finish.
          if ('closeIdleConnections' in server) server.closeIdleConnections();
          // A connection that never sent a request (a browser's preconnected socket) counts as busy, and
          // its headers timeout is no longer checked once closing: it would hold `close` open for good.
          // After the grace period every connection is closed.
          const force = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
          }, CLOSE_GRACE_MS);
          force.unref();
        });
        await nip46?.close();
        store.close();
        await audit.close();
      })();
      return closing;
    },
  };
}
