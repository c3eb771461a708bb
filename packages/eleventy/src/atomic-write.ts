import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replace a file atomically: write a temp file beside it, then rename it over the target, so a reader
 * (a dev server, a deploy upload running alongside) or a crash sees the old page or the signed one, never
 * a torn file. The signed page is a new file: hard links to the old one keep the old content.
 *
 * (`@siegel/core` has the same helper, `writeFileAtomic`, but does not export it yet.)
 *
 * @example
 * await replaceFileAtomic('_site/about/index.html', signedHtml);
 * @throws the `fs` error of the write or the rename (the temp file is removed first).
 */
export async function replaceFileAtomic(path: string, data: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
