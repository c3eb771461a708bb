import { cleartextBunkerWarningOnce } from './bunker-url-check.js';
import { isSiegelError } from './errors.js';
import { HttpBunkerSigner } from './http-bunker-signer.js';
import type { ResolvedSignSiteOptions } from './sign-site-options.js';
import type { Signer } from './signer.js';
import { createSigner } from './signer-config.js';

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
