import { createGermanError, isSiegelError } from '../errors.js';
import { readSignerConfig, type ValueSource } from '../options/env.js';
import type { ResolvedSignSiteOptions } from '../options/options.js';
import { cleartextBunkerWarningOnce } from './cleartext-bunker.js';
import { HttpBunkerSigner } from './http-bunker-signer.js';
import { LocalKeySigner } from './local-key-signer.js';
import type { Signer } from './signer.js';

/** Options of {@link createSigner}; explicit values win over the environment. */
export interface CreateSignerOptions {
  /** Environment to read `BUNKER_*` from (default: none — pass `loadEnv(dir)` at entry points). */
  env?: Record<string, string | undefined>;
  /** Bunker base address (default: `BUNKER_URL`, else `http://localhost:7777`). */
  url?: string;
  /** Where `url` came from, for the message when the bunker cannot be reached (default: the `url` option). */
  urlSource?: ValueSource;
  /** Bearer token (default: `BUNKER_API_TOKEN`). */
  apiToken?: string;
  /** Key name (default: `BUNKER_KEY_NAME`, else `default`). */
  keyName?: string;
  /** A local secret key (hex or nsec): when given, signs in-process with {@link LocalKeySigner}. */
  secretKey?: string;
}

/**
 * Create the signer a project is configured for: a {@link LocalKeySigner} when `secretKey` is given,
 * else an {@link HttpBunkerSigner} for the configured bunker.
 *
 * @example
 * ```ts
 * const signer = createSigner({ env: loadEnv(process.cwd()) });
 * ```
 * @throws {SiegelError} `token_missing` (`BUNKER_API_TOKEN nicht gesetzt`) when no token is configured.
 */
export function createSigner(options: CreateSignerOptions = {}): HttpBunkerSigner | LocalKeySigner {
  if (options.secretKey) return new LocalKeySigner(options.secretKey);
  const config = readSignerConfig(options.env ?? {});
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

/**
 * The run's signer, checked: `options.signer`, else the one the environment configures. A missing token,
 * an unknown or locked key, or a bunker that is down throw here — before anything is written. A dry run
 * without a token has no signer (and no pubkey).
 * @throws {SiegelError} from the signer.
 */
export async function openSigner(
  options: ResolvedSignSiteOptions,
): Promise<{ signer: Signer | undefined; pubkey: string | undefined }> {
  const { logger } = options;
  let signer = options.signer;
  if (!signer) {
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
      });
    } catch (error) {
      if (!(options.dryRun && isSiegelError(error, 'token_missing'))) throw error;
      logger.warn('Dry run without BUNKER_API_TOKEN: the key is not checked.');
      return { signer: undefined, pubkey: undefined };
    }
  }
  if (signer instanceof HttpBunkerSigner) {
    // Before the first request: the token is about to travel.
    const warning = cleartextBunkerWarningOnce(signer.url);
    if (warning) logger.warn(warning);
  }
  await signer.check?.();
  return { signer, pubkey: await signer.getPublicKey() };
}
