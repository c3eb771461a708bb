// signer/ owns who signs: the Signer implementations (the interface is nostr/signer.ts) — the HTTP bunker
// (http-bunker-signer.ts, the default, which checks every event it gets back), any NIP-46 remote signer
// (nip46-signer.ts, for a `bunker://` BUNKER_URL) and a local key (local-key-signer.ts, for tests and
// offline use) — and how a run picks and checks its signer from the
// options and the environment (create-signer.ts). A signer only signs; what to sign and when is pipeline/'s.
import { dirname, join } from 'node:path';
import { createGermanError, isSiegelError } from '../errors.js';
import type { Signer } from '../nostr/signer.js';
import { readSignerConfig, type ValueSource } from '../options/env.js';
import { DEFAULTS, type ResolvedSignSiteOptions, type SiegelLogger } from '../options/options.js';
import { cleartextBunkerWarningOnce } from './cleartext-bunker.js';
import { HttpBunkerSigner } from './http-bunker-signer.js';
import { LocalKeySigner } from './local-key-signer.js';
import { Nip46Signer } from './nip46-signer.js';

/** Options of {@link createSigner}; explicit values win over the environment. */
export interface CreateSignerOptions {
  /** Environment to read `BUNKER_*` from (default: none — pass `loadEnv(dir)` at entry points). */
  env?: Record<string, string | undefined>;
  /**
   * Bunker base address (default: `BUNKER_URL`, else `http://localhost:7777`); a `bunker://` URI selects a
   * NIP-46 remote signer ({@link Nip46Signer}, no token needed).
   */
  url?: string;
  /** Where `url` came from, for the message when the bunker cannot be reached (default: the `url` option). */
  urlSource?: ValueSource;
  /** Bearer token (default: `BUNKER_API_TOKEN`). */
  apiToken?: string;
  /** Key name (default: `BUNKER_KEY_NAME`, else `default`). */
  keyName?: string;
  /** A local secret key (hex or nsec): when given, signs in-process with {@link LocalKeySigner}. */
  secretKey?: string;
  /** NIP-46 only: where the client key is kept (default `.siegel-nip46-client.json` in the current directory). */
  clientKeyFile?: string;
  /** NIP-46 only: progress and approval requests (default: nowhere). */
  logger?: SiegelLogger;
}

/**
 * Create the signer a project is configured for: a {@link LocalKeySigner} when `secretKey` is given, a
 * {@link Nip46Signer} when the bunker address is a `bunker://` URI, else an {@link HttpBunkerSigner} for the
 * configured bunker.
 *
 * @example
 * ```ts
 * const signer = createSigner({ env: loadEnv(process.cwd()) });
 * ```
 * @throws {SiegelError} `token_missing` (`BUNKER_API_TOKEN nicht gesetzt`) when no token is configured
 * for an HTTP bunker; `invalid_options` for a bad `bunker://` URI.
 */
export function createSigner(
  options: CreateSignerOptions = {},
): HttpBunkerSigner | Nip46Signer | LocalKeySigner {
  if (options.secretKey) return new LocalKeySigner(options.secretKey);
  const config = readSignerConfig(options.env ?? {});
  const url = options.url ?? config.url;
  if (isBunkerUri(url)) {
    return new Nip46Signer({
      uri: url,
      ...(options.clientKeyFile === undefined ? {} : { clientKeyFile: options.clientKeyFile }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }
  const apiToken = options.apiToken?.trim() || config.apiToken;
  if (!apiToken) {
    throw createGermanError(
      'token_missing',
      'BUNKER_API_TOKEN is not set: put it in `.env` in the project root or in the environment.',
    );
  }
  return new HttpBunkerSigner({
    ...(options.url === undefined
      ? { url: config.url, urlSource: config.urlSource }
      : { url: options.url, urlSource: options.urlSource ?? { kind: 'option', name: 'url' } }),
    apiToken,
    keyName: options.keyName ?? config.keyName,
  });
}

/** Whether `value` is a NIP-46 `bunker://` URI (then it selects a {@link Nip46Signer}). */
export function isBunkerUri(value: string): boolean {
  return /^bunker:\/\//i.test(value.trim());
}

/**
 * The run's signer, checked: `options.signer`, else the one the environment configures. A missing token,
 * an unknown or locked key, or a bunker that is down throw here — before anything is written. A dry run
 * without a token has no signer (and no pubkey). `owned`: the signer was made here, and the run closes it.
 * @throws {SiegelError} from the signer.
 */
export async function openSigner(
  options: Pick<
    ResolvedSignSiteOptions,
    'signer' | 'logger' | 'cacheFile' | 'env' | 'bunkerUrl' | 'bunkerApiToken' | 'bunkerKeyName' | 'dryRun'
  >,
): Promise<{ signer: Signer | undefined; pubkey: string | undefined; owned: boolean }> {
  const { logger } = options;
  const clientKeyFile = join(dirname(options.cacheFile), DEFAULTS.nip46ClientKeyFile);
  let signer = typeof options.signer === 'string' ? undefined : options.signer;
  const owned = !signer;
  if (typeof options.signer === 'string') {
    signer = createSigner({ url: options.signer, clientKeyFile, logger });
  } else if (!signer) {
    const secretKey = options.env.SIEGEL_SECRET_KEY?.trim() || undefined;
    if (secretKey)
      logger.warn('Signing in-process with SIEGEL_SECRET_KEY (a local key), not through the bunker.');
    try {
      signer = createSigner({
        env: options.env,
        url: options.bunkerUrl,
        urlSource: { kind: 'option', name: 'bunkerUrl' },
        apiToken: options.bunkerApiToken,
        keyName: options.bunkerKeyName,
        secretKey,
        clientKeyFile,
        logger,
      });
    } catch (error) {
      if (!(options.dryRun && isSiegelError(error, 'token_missing'))) throw error;
      logger.warn('Dry run without BUNKER_API_TOKEN: the key is not checked.');
      return { signer: undefined, pubkey: undefined, owned: false };
    }
  }
  if (signer instanceof HttpBunkerSigner) {
    // Before the first request: the token is about to travel.
    const warning = cleartextBunkerWarningOnce(signer.url);
    if (warning) logger.warn(warning);
  }
  try {
    await signer.check?.();
    return { signer, pubkey: await signer.getPublicKey(), owned };
  } catch (error) {
    if (owned) await (signer as Signer).close?.();
    throw error;
  }
}
