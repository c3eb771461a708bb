import { type Dirent, readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, normalize, relative, sep } from 'node:path';
import { SiegelError } from '../errors.js';
import { isStaleTempName } from './atomic-write.js';

/** Our own verify pages (`verify/{event id}/index.html`, the site-wide `verify/index.html`) are never signed. */
const VERIFY_PAGE = /^verify\/(?:[0-9a-f]{64}\/)?index\.html$/;

/**
 * Every entry under `dir`, recursively, by plain synchronous system calls on this thread: through
 * `fs/promises` each directory is a round trip through libuv's thread pool, and a site of 10 000 pages in
 * folders of their own (20 000 entries) took 430–470 ms to list against 195–226 ms (tmpfs, side by side).
 * Used at a run's start (the pages) and end (the site manifest's files), when nothing else is waiting.
 * @throws the `readdir` error of `dir` or of a folder in it.
 */
export function listTree(dir: string): Dirent[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true });
}

/**
 * Every `*.html` file under `dir`, as sorted paths relative to it with `/` separators — except Siegel's own
 * verify pages. Temp files a killed run left behind are listed in `found.staleTemp` when that is given.
 * @throws {SiegelError} `io_error` when `dir` cannot be read.
 */
export async function findPages(dir: string, found: { staleTemp?: string[] } = {}): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = listTree(dir);
  } catch (cause) {
    throw new SiegelError('io_error', `Cannot read the output directory \`${dir}\``, { cause });
  }
  const pages: string[] = [];
  for (const entry of entries) {
    if (entry.isFile() && found.staleTemp && isStaleTempName(entry.name)) {
      found.staleTemp.push(`${entry.parentPath}${sep}${entry.name}`);
      continue;
    }
    if (!entry.isFile() || !entry.name.toLowerCase().endsWith('.html')) continue;
    const path = relative(dir, `${entry.parentPath}${sep}${entry.name}`).split(sep).join('/');
    if (!VERIFY_PAGE.test(path)) pages.push(path);
  }
  return pages.sort();
}

/**
 * The pages a run signs, relative to `root`: `files` when given (normalised, sorted, each inside `root`),
 * else every page {@link findPages} finds — plus the temp files a killed run left behind.
 *
 * @example
 * ```ts
 * const { paths, staleTemp } = await findSitePages('/abs/dist', {});
 * ```
 * @throws {SiegelError} `invalid_options` when `root` is not a directory or a file is outside it;
 *   `io_error` when `root` cannot be read.
 */
export async function findSitePages(
  root: string,
  options: { files?: string[] | undefined },
): Promise<{ paths: string[]; staleTemp: string[] }> {
  await requireDirectory(root);
  const staleTemp: string[] = [];
  const paths = options.files ? normalizeFiles(options.files) : await findPages(root, { staleTemp });
  return { paths, staleTemp };
}

/**
 * Check that `dir` is a directory: the one wording, for signing and verifying alike, of a site directory
 * that is not there.
 *
 * @example
 * ```ts
 * await requireDirectory(resolve('dist'));
 * ```
 * @throws {SiegelError} `invalid_options` (a usage error: exit 2 in the CLI) when it is not.
 */
export async function requireDirectory(dir: string): Promise<void> {
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
