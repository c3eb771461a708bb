// pipeline/ owns a signing run from start to end: which pages (find-pages.ts), the session that holds the
// signer and the cache and collects changed pages into batches (session.ts), the one place that decides
// how much is in flight at once — reading, parsing on worker threads, signing, writing on the I/O thread
// (pump.ts, with parse-pool.ts, file-io.ts and task-pool.ts) — and the summary of the run (summary.ts).
// It asks page/ what a page is, cache/ what was signed before, signer/ for signatures and verify/ for the
// verify pages; it knows nothing about HTML itself.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findSitePages } from '../fs/find-pages.js';
import { formatPublishReport } from '../nostr/publish-session.js';
import {
  type ResolvedSignSiteOptions,
  resolveSignSiteOptions,
  type SignSiteOptions,
} from '../options/options.js';
import { PagePump } from './pump.js';
import { SigningSession } from './session.js';
import { formatNothingSignedWarning, formatSummary, type SignSummary } from './summary.js';

/**
 * Sign every HTML page of a built site in `dir`: hash each page's `<main>`, sign changed pages through the
 * signer in large batches (while later pages are still being parsed), take unchanged pages' blocks from the
 * cache with no bunker call, and write the pages, the verify pages and the cache — atomically, and during
 * long runs after every batch. Logs the summary through `options.logger` — and a warning when no page
 * ended up signed (no HTML page found, or none with a `<main>`, or each refused or failed) — and returns it.
 *
 * The signer is checked first: a missing token, an unknown or locked key, or a bunker that is down throw
 * before any page or the cache is touched.
 *
 * @example
 * ```ts
 * const summary = await signSite('dist', { site: 'https://example.com', env: loadEnv(process.cwd()) });
 * ```
 * @throws {SiegelError} `token_missing`, `key_not_found`, `key_locked` (German messages),
 * `bunker_unreachable`, `bunker_error`, `invalid_options`, `io_error`.
 */
export async function signSite(dir: string, options: SignSiteOptions = {}): Promise<SignSummary> {
  const resolved = resolveSignSiteOptions(options);
  const root = resolve(dir);
  const { paths, staleTemp } = await findSitePages(root, resolved);
  const session = await SigningSession.open(resolved);
  // Leftovers of a run that was killed mid-write (the files themselves were never replaced).
  if (!resolved.dryRun) await Promise.all(staleTemp.map((file) => rm(file, { force: true })));
  const pump = new PagePump(root, resolved, session, paths.length);
  try {
    await pump.pump(paths);
    return await finish(pump, session, resolved, paths, dir);
  } finally {
    await pump.close();
    // Also after a fatal error: the signed batches' events reach the relays or the outbox (an error
    // here must not hide the one that stopped the run; on success finish() reported it already).
    await session.finishPublishing().catch(() => undefined);
    await session.closeSigner();
  }
}

/**
 * The end of a run: every page signed and written, cache entries of pages that are gone dropped (unless
 * the run named its `files`), the cache saved — also after a fatal error, so signed batches are kept —
 * and the summary logged, with a warning when no page ended up signed (never silent).
 */
async function finish(
  pump: PagePump,
  session: SigningSession,
  options: ResolvedSignSiteOptions,
  paths: string[],
  dir: string,
): Promise<SignSummary> {
  await pump.drain();
  if (!options.files && !session.fatal) session.prune(new Set(paths));
  // After a fatal error the cache keeps what this run signed; a run that signed nothing leaves it as it was.
  if (!session.fatal || session.signedAny) await session.saveCache();
  if (session.fatal) throw session.fatal;
  const published = await session.finishPublishing();
  const summary = session.summary(published);
  options.logger.info(formatSummary(summary, { verbose: options.verbose, selector: options.selector }));
  // A relay that is down never fails the run; the events wait in the outbox, and the line says so.
  const line = published ? formatPublishReport(published) : '';
  if (line && published?.waiting) options.logger.warn(line);
  else if (line) options.logger.info(line);
  const nothingSigned = formatNothingSignedWarning(summary, { dir, selector: options.selector });
  if (nothingSigned) options.logger.warn(nothingSigned);
  return summary;
}
