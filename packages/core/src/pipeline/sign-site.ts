// pipeline/ owns a signing run from start to end, and it reads in the order a page travels: which pages
// (fs/find-pages.ts), then page-flow.ts moves each one — read → decide by its bytes → parse (parse-pool.ts,
// worker threads) → decide by its hash (decide.ts) → sign in batches (sign-batches.ts) → write (the I/O
// thread) → record — with one place that bounds how much is in flight. signing-run.ts holds what the run
// keeps from start to end: the signer, the cache (run-cache.ts, journalled batch by batch), the publishing
// (the outbox is journalled before anything is sent; the relays get a time budget) and the summary
// (summary.ts). It asks page/ what a page is, cache/ what was signed before, signer/ for signatures and
// verify/ for the verify pages; it knows nothing about HTML itself.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SiegelError } from '../errors.js';
import { findSitePages } from '../fs/find-pages.js';
import { formatPublishReport } from '../nostr/publish-session.js';
import {
  type ResolvedSignSiteOptions,
  resolveSignSiteOptions,
  type SignSiteOptions,
} from '../options/options.js';
import type { SignRunSeams } from './decide.js';
import { PageFlow } from './page-flow.js';
import { checkSiteIdFree, signSiteManifest } from './sign-manifest.js';
import { SigningRun } from './signing-run.js';
import {
  describeNothingSigned,
  formatManifestLine,
  formatSummary,
  type ManifestSummary,
  type SignSummary,
} from './summary.js';

/**
 * The key of test-only hooks in `signSite`'s options (`SignRunSeams`): not exported by the package, not
 * reachable from the CLI, an integration or the environment.
 */
export const SIGN_SITE_SEAMS = Symbol('siegel.signSite.seams');

/**
 * Sign every HTML page of a built site in `dir`: hash each page's `<main>`, sign changed pages through the
 * signer in large batches (while later pages are still being parsed), take unchanged pages' blocks from the
 * cache with no bunker call, and write the pages, the verify pages and the cache — atomically, and during
 * long runs after every batch. Each signed batch's events go to the outbox's journal before its pages are
 * written, then to the relays (`relays`); once the last page is written the run waits at most
 * `publishTimeoutMs` (5 s) for their answers, and what they did not confirm waits in the outbox. Logs the
 * summary through `options.logger` and returns it.
 *
 * A run that leaves no page signed is an error (`nothing_signed`), thrown after the summary: no HTML page
 * found, or pages of which none has the element (or each was refused) — a build that signs nothing must
 * not pass. A run whose pages all come from the cache is fine. A run with failed pages returns its summary
 * (its `failed` count fails it) and warns; so does a host that names the pages (`files`) and names none.
 *
 * The signer is checked first: a missing token, an unknown or locked key, or a bunker that is down throw
 * before any page or the cache is touched.
 *
 * @example
 * ```ts
 * const summary = await signSite('dist', { site: 'https://example.com', env: loadEnv(process.cwd()) });
 * ```
 * @throws {SiegelError} `token_missing`, `key_not_found`, `key_locked` (German messages),
 * `bunker_unreachable`, `bunker_error`, `invalid_options`, `io_error`, `nothing_signed`.
 */
export async function signSite(dir: string, options: SignSiteOptions = {}): Promise<SignSummary> {
  const { [SIGN_SITE_SEAMS]: seams, ...rest } = options as SignSiteOptions & {
    [SIGN_SITE_SEAMS]?: SignRunSeams;
  };
  const resolved = resolveSignSiteOptions(rest);
  const root = resolve(dir);
  const { paths, staleTemp } = await findSitePages(root, resolved);
  const run = await SigningRun.open(resolved, seams);
  try {
    await checkSiteIdFree(run);
  } catch (error) {
    await run.closeSigner();
    throw error;
  }
  // Leftovers of a run that was killed mid-write (the files themselves were never replaced).
  if (!resolved.dryRun) await Promise.all(staleTemp.map((file) => rm(file, { force: true })));
  const flow = new PageFlow(root, run, paths.length);
  try {
    await flow.read(paths);
    return await finish(flow, run, resolved, paths, dir, root);
  } finally {
    await flow.close();
    // Also after a fatal error: the signed batches' events reach the relays or the outbox (an error
    // here must not hide the one that stopped the run; on success finish() reported it already).
    await run.finishPublishing().catch(() => undefined);
    await run.closeSigner();
  }
}

/**
 * The end of a run: every page signed and written, cache entries of pages that are gone dropped (unless
 * the run named its `files`), the cache saved — also after a fatal error, so signed batches are kept —
 * and the summary logged; then a run that left no page signed throws `nothing_signed` (never silent).
 */
async function finish(
  flow: PageFlow,
  run: SigningRun,
  options: ResolvedSignSiteOptions,
  paths: string[],
  dir: string,
  root: string,
): Promise<SignSummary> {
  await flow.drain();
  // The parse workers and the I/O thread are done: their memory goes before the manifest and the cache's.
  await flow.close();
  if (!options.files && !run.fatal) run.cache.prune(new Set(paths));
  // Every page is written: the site manifest lists the output as it is now (only a site with a signed page).
  // It is kept in the cache too, so it is signed before the cache is written.
  let manifest: ManifestSummary | undefined;
  try {
    if (!run.fatal && run.reports.some((report) => report.eventId))
      manifest = await signSiteManifest(root, run);
  } finally {
    // After a fatal error the cache keeps what this run signed; a run that signed nothing leaves it as it was.
    if (!run.fatal || run.signedAny) await run.cache.save();
  }
  if (run.fatal) throw run.fatal;
  // Every page is signed and written: the relays get the run's budget (publishTimeoutMs) from here.
  const published = await run.finishPublishing();
  const summary = { ...run.summary(published), ...(manifest ? { manifest } : {}) };
  options.logger.info(formatSummary(summary, { verbose: options.verbose, selector: options.selector }));
  if (manifest) options.logger.info(formatManifestLine(manifest));
  // A relay that is down never fails the run; the events wait in the outbox, and the line says so.
  const line = published ? formatPublishReport(published) : '';
  if (line && published?.waiting) options.logger.warn(line);
  else if (line) options.logger.info(line);
  const named = options.files !== undefined;
  const nothingSigned = describeNothingSigned(summary, { dir, selector: options.selector, named });
  if (!nothingSigned) return summary;
  // Said, not thrown: a host that names the pages (`files`: Eleventy's list of what it wrote) and names
  // none asked for nothing (`eleventy --dryrun` writes no page); and a run with failed pages fails on
  // those already (the summary lists why), so the caller still gets the summary.
  if ((named && paths.length === 0) || summary.failed > 0) options.logger.warn(nothingSigned);
  else throw new SiegelError('nothing_signed', nothingSigned);
  return summary;
}
