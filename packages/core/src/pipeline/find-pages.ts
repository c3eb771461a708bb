import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { SiegelError } from '../errors.js';
import { isStaleTempName } from '../fs/atomic-write.js';

/** Our own verify pages (`verify/{event id}/index.html`) are never signed. */
const VERIFY_PAGE = /^verify\/[0-9a-f]{64}\/index\.html$/;

/**
 * Every `*.html` file under `dir`, as sorted paths relative to it with `/` separators — except Siegel's own
 * verify pages. Temp files a killed run left behind are listed in `found.staleTemp` when that is given.
 * @throws {SiegelError} `io_error` when `dir` cannot be read.
 */
export async function findPages(dir: string, found: { staleTemp?: string[] } = {}): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
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
