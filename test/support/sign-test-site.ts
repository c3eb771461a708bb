import { LocalKeySigner, type SignSummary, signSite } from '@siegel/core';

/**
 * Sign the site in `dir` for its public URL `site` with the test key `key` (hex) through `signSite`: no
 * bunker, nothing published, nothing logged, parsed on the main thread; the cache goes to `cacheFile`.
 */
export function signTestSite(
  dir: string,
  site: string,
  key: string,
  cacheFile: string,
): Promise<SignSummary> {
  return signSite(dir, {
    site,
    signer: new LocalKeySigner(key),
    cacheFile,
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
}
