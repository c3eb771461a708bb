import { isUtf8 } from 'node:buffer';
import { rm, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { SiegelError } from '../errors.js';
import { resolveSignSiteOptions, type SignSiteOptions } from '../options/options.js';
import { VerifyOutput } from '../verify/verify-output.js';
import { ChunkReader, FileWorker, inProcessFileIo } from './file-io.js';
import { findPages } from './find-pages.js';
import { ParsePool } from './parse-pool.js';
import { createProgressLine } from './progress-line.js';
import { type PageResult, SigningSession } from './session.js';
import { formatSummary, type SignSummary } from './summary.js';
import { TaskPool } from './task-pool.js';

/** Pages read at once (synchronously, see `ChunkReader`) before they are processed. */
const READ_CHUNK = 32;
/** Page writes queued at once (each a job for the I/O thread, which batches them). */
const WRITE_CONCURRENCY = 64;
/** Pages handed to the parse workers ahead of the main thread. */
const PARSE_AHEAD = 32;

/**
 * Sign every HTML page of a built site in `dir`: hash each page's `<main>`, sign changed pages through the
 * signer in large batches (while later pages are still being parsed), take unchanged pages' blocks from the
 * cache with no bunker call, and write the pages, the verify pages and the cache — atomically, and during
 * long runs after every batch. Logs the summary through `options.logger` and returns it.
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
  await requireDirectory(root);
  const staleTemp: string[] = [];
  const paths = resolved.files ? normalizeFiles(resolved.files) : await findPages(root, { staleTemp });
  const session = await SigningSession.open(resolved);
  // Leftovers of a run that was killed mid-write (the files themselves were never replaced).
  if (!resolved.dryRun) await Promise.all(staleTemp.map((file) => rm(file, { force: true })));
  const writes = new TaskPool(WRITE_CONCURRENCY);
  const progress = createProgressLine(paths.length, { enabled: resolved.progress });
  // Parse workers pay off only for runs with pages to parse; a warm run parses (almost) nothing.
  const pool = paths.length >= 64 ? ParsePool.create(resolved.parseWorkers, resolved.selector) : undefined;
  const analyze = pool ? (bytes: Buffer) => pool.analyze(bytes) : undefined;
  // Writes go to a thread of their own, with plain system calls (see FileWorker).
  const io = FileWorker.create() ?? inProcessFileIo;
  const verify = new VerifyOutput(root, resolved.site, resolved.selector, io);
  try {
    return await signPages();
  } finally {
    await writes.idle();
    await Promise.all([pool?.close(), io.close()]);
  }

  async function signPages(): Promise<SignSummary> {
    let signedAny = false;

    const finishPage = (path: string, result: PageResult): void => {
      if (resolved.dryRun || (result.output === undefined && !result.event)) {
        session.record(path, result);
        progress.tick();
        return;
      }
      signedAny ||= result.event !== undefined;
      writes.add(async () => {
        try {
          // The page's output buffer goes to the I/O thread (detached here): nothing reads it afterwards.
          await Promise.all([
            result.output !== undefined &&
              io.run([{ op: 'replace', path: join(root, path), data: result.output }]),
            result.event && result.url && verify.writePage(result.event, result.url),
          ]);
          session.record(path, result);
        } catch (error) {
          session.record(path, { outcome: 'failed', error: `cannot write: ${(error as Error).message}` });
        }
        progress.tick();
      });
    };

    const pending: Array<Promise<void>> = [];
    const reader = new ChunkReader();
    reading: for (let start = 0; start < paths.length; start += READ_CHUNK) {
      // Views into one reused buffer, valid until the next chunk is read: processPage copies what it keeps.
      const chunk = reader.read(paths.slice(start, start + READ_CHUNK).map((path) => join(root, path)));
      for (const [offset, bytes] of chunk.entries()) {
        const path = paths[start + offset] as string;
        if (session.fatal) break reading;
        if (bytes instanceof Error) {
          session.record(path, { outcome: 'failed', error: `cannot read: ${bytes.message}` });
          progress.tick();
          continue;
        }
        if (!isUtf8(bytes)) {
          session.record(path, { outcome: 'failed', error: 'not valid UTF-8' });
          progress.tick();
          continue;
        }
        await session.waitForCapacity();
        // Read on only while few writes wait: every queued page holds its output (and its verify files) in
        // memory, and a long queue also makes V8 grow its young generation — peak RSS then wanders.
        await writes.waitForRoom(WRITE_CONCURRENCY);
        if (pool) await pool.waitForRoom(PARSE_AHEAD);
        const result = session.processPage(path, bytes, analyze ? { analyze } : {});
        pending.push(result.then((final) => finishPage(path, final)).catch(() => {}));
      }
    }
    await session.drain();
    await Promise.all(pending);
    await writes.idle();
    progress.done();
    if (signedAny) await verify.writeScript();
    await verify.finish();
    if (!resolved.files && !session.fatal) session.prune(new Set(paths));
    await session.saveCache();
    if (session.fatal) throw session.fatal;

    const summary = session.summary();
    resolved.logger.info(formatSummary(summary, { verbose: resolved.verbose, selector: resolved.selector }));
    return summary;
  }
}

async function requireDirectory(dir: string): Promise<void> {
  try {
    if ((await stat(dir)).isDirectory()) return;
  } catch {}
  throw new SiegelError('invalid_options', `The output directory \`${dir}\` does not exist`);
}

function normalizeFiles(files: string[]): string[] {
  return [
    ...new Set(
      files.map((file) => {
        const path = normalize(file).split('\\').join('/');
        if (isAbsolute(path) || path === '..' || path.startsWith('../')) {
          throw new SiegelError(
            'invalid_options',
            `\`files\` must be relative to the output directory, got \`${file}\``,
          );
        }
        return path;
      }),
    ),
  ].sort();
}
