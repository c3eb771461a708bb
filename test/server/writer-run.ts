import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type RunningServer, startServer } from './server-process.js';

/** What {@link useWriterRun} sets up; its fields are set once `beforeAll` has run. */
export interface WriterRun<Files> {
  server: RunningServer;
  /** The temporary directory the files were written to. */
  dir: string;
  /** What `write` returned. */
  files: Files;
}

/**
 * The setup of the writer suites (images, PDFs, Markdown): in the calling `describe`, files written by real
 * tools into a fresh temporary directory while a bunker starts, then a signing server against it without a
 * practical rate limit; after the block, both are stopped and every directory removed.
 *
 * @example
 * ```ts
 * const run = useWriterRun('siegel-pdf-writers-', (dir) => writePdfs(dir));
 * it('signs', async () => { await signOverHttp(run.server, 'a.pdf', bytes); });
 * ```
 */
export function useWriterRun<Files>(
  prefix: string,
  write: (dir: string) => Promise<Files>,
): WriterRun<Files> {
  const run = {} as WriterRun<Files>;
  let bunker: RunningBunker | undefined;
  beforeAll(async () => {
    run.dir = await mkdtemp(join(tmpdir(), prefix));
    [bunker, run.files] = await Promise.all([useBunker(), write(run.dir)]);
    run.server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '10000' } });
  }, 180_000);
  afterAll(async () => {
    await run.server?.stop();
    await bunker?.stop();
    if (run.server) await rm(run.server.dataDir, { recursive: true, force: true });
    if (run.dir) await rm(run.dir, { recursive: true, force: true });
  });
  return run;
}
