import { resolve } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { resolveSignSiteOptions, type SignSiteOptions } from './sign-site-options.js';
import { formatSummary, type SignSummary } from './sign-summary.js';
import { SigningSession } from './signing-session.js';
import { TaskPool } from './task-pool.js';
import { VerifyOutput } from './verify-output.js';

/** Options of {@link createSiteSigner}: those of `signSite`, plus where the site is written. */
export interface SiteSignerOptions extends SignSiteOptions {
  /** The build's output directory: verify pages are written below it. Required. */
  outDir: string;
}

/** Signs pages one at a time as a build produces them (Eleventy's transform), batching behind the scenes. */
export interface SiteSigner {
  /**
   * The page's html with its signature block (or unchanged, for a page without `<main>` and in a dry run).
   * Concurrent calls are collected into few bunker requests (a batch is sent when full or on the next tick).
   */
  signPage(relativePath: string, html: string): Promise<string>;
  /** Wait for outstanding batches, write the verify pages and the cache, log and return the summary. */
  finish(): Promise<SignSummary>;
}

/**
 * A page-by-page signer sharing `signSite`'s machinery (cache, batching, verify pages), for build tools that
 * hand over each page's html before writing it.
 *
 * @example
 * ```ts
 * const signer = createSiteSigner({ outDir: '_site', site: 'https://example.com', env: loadEnv(root) });
 * eleventyConfig.addTransform('siegel', (html, outputPath) => signer.signPage(relative('_site', outputPath), html));
 * eleventyConfig.on('eleventy.after', () => signer.finish());
 * ```
 * @throws {SiegelError} from `signPage` and `finish` as `signSite` does (the first call checks the signer).
 */
export function createSiteSigner(options: SiteSignerOptions): SiteSigner {
  const { outDir, ...rest } = options;
  const resolved = resolveSignSiteOptions(rest);
  let opening: Promise<SigningSession> | undefined;
  const open = () => {
    opening ??= SigningSession.open(resolved);
    return opening;
  };
  const targets = new Map<string, { event: NostrEvent; url: string }>();
  return {
    async signPage(relativePath, html) {
      const session = await open();
      const path = relativePath
        .split('\\')
        .join('/')
        .replace(/^\.?\//, '');
      const result = await session.processPage(path, html, { autoFlush: true });
      session.record(path, result);
      if (result.event && result.url) targets.set(result.event.id, { event: result.event, url: result.url });
      return typeof result.output === 'string' ? result.output : html;
    },
    async finish() {
      const session = await open();
      await session.drain();
      if (!resolved.dryRun && targets.size > 0) {
        const verify = new VerifyOutput(resolve(outDir), resolved.site, resolved.selector);
        const pool = new TaskPool(16);
        const failures: unknown[] = [];
        for (const { event, url } of targets.values()) {
          pool.add(() => verify.writePage(event, url).catch((error) => void failures.push(error)));
        }
        await pool.idle();
        await verify.writeScript();
        await verify.finish();
        if (failures.length > 0) throw failures[0];
      }
      await session.saveCache();
      if (session.fatal) throw session.fatal;
      const summary = session.summary();
      resolved.logger.info(
        formatSummary(summary, { verbose: resolved.verbose, selector: resolved.selector }),
      );
      return summary;
    },
  };
}
