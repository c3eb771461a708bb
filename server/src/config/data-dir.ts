import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Make sure the data directory (`SIEGEL_DATA_DIR`) is the service's own before anything is read from it: a
 * missing one is created with mode 0700; an existing one — or its `files/` directory or its database — that
 * its group or others may write to is refused, since whoever may write there could replace the database or
 * the signed files the service serves.
 *
 * @example
 * ```ts
 * await prepareDataDir('/srv/siegel/data'); // throws for a directory of mode 0777
 * ```
 * @throws {Error} for a path that is not a directory, or one writable by group or others (naming the fix).
 */
export async function prepareDataDir(dir: string): Promise<void> {
  const stats = await statOrUndefined(dir);
  if (stats === undefined) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return;
  }
  if (!stats.isDirectory()) throw new Error(`SIEGEL_DATA_DIR \`${dir}\` is not a directory`);
  for (const path of [dir, join(dir, 'files'), join(dir, 'siegel.sqlite')]) {
    const mode = path === dir ? stats.mode : (await statOrUndefined(path))?.mode;
    if (mode === undefined || (mode & 0o022) === 0) continue;
    const who = (mode & 0o020 ? ['its group'] : []).concat(mode & 0o002 ? ['everyone'] : []).join(' and ');
    throw new Error(
      `SIEGEL_DATA_DIR: \`${path}\` may be written by ${who} (mode ${(mode & 0o777).toString(8).padStart(4, '0')}), ` +
        'who could replace the database or the signed files. ' +
        `Run \`chmod go-w ${path}\` (or use another directory) and start again.`,
    );
  }
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
