import { type FileHandle, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurable } from '@siegel/core/fs';

/** The file of request ids already handled, in the data directory. */
export const NIP46_SEEN_FILE = 'nip46-seen.log';

/** A request dated more than this before now is dropped (and its id need not be kept longer). */
export const MAX_PAST_SECONDS = 300;

/** A request dated more than this after now is dropped: a clock that far ahead, or a replay kept for later. */
export const MAX_FUTURE_SECONDS = 30;

/** Largest number of ids kept in memory; past it the oldest go (they are in the file until the next start). */
const MAX_IDS = 100_000;

/**
 * The ids of the NIP-46 requests already handled, so that none is answered (or signed) twice — not when
 * several relays deliver it, and not when it is replayed after a restart: each id is appended to
 * `{dataDir}/nip46-seen.log` before its request is handled. Only requests dated within
 * [now − {@link MAX_PAST_SECONDS}, now + {@link MAX_FUTURE_SECONDS}] are accepted at all, so ids older than
 * that are dropped from the file at the next start.
 */
export class ReplayGuard {
  readonly #ids = new Map<string, number>();
  readonly #handle: FileHandle;
  readonly #now: () => number;
  #writing: Promise<void> = Promise.resolve();

  private constructor(handle: FileHandle, now: () => number) {
    this.#handle = handle;
    this.#now = now;
  }

  /** Read the ids still within the window, rewrite the file with only those, and open it for appending. */
  static async open(dataDir: string, now: () => number = Date.now): Promise<ReplayGuard> {
    const path = join(dataDir, NIP46_SEEN_FILE);
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const oldest = Math.floor(now() / 1000) - MAX_PAST_SECONDS - MAX_FUTURE_SECONDS;
    const kept: [string, number][] = [];
    for (const line of text.split('\n')) {
      const match = /^(\d{1,12}) ([0-9a-f]{64})$/.exec(line);
      if (match && Number(match[1]) >= oldest) kept.push([match[2] as string, Number(match[1])]);
    }
    await writeFileDurable(path, kept.map(([id, at]) => `${at} ${id}\n`).join(''));
    const guard = new ReplayGuard(await open(path, 'a', 0o600), now);
    for (const [id, at] of kept) guard.#ids.set(id, at);
    return guard;
  }

  /** Whether `createdAt` (Unix seconds) is within the accepted window. */
  fresh(createdAt: number): boolean {
    const now = this.#now() / 1000;
    return createdAt >= now - MAX_PAST_SECONDS && createdAt <= now + MAX_FUTURE_SECONDS;
  }

  /** Whether the request `id` was handled already. */
  seen(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Note `id` as handled; resolves once it is written to the file. */
  remember(id: string, createdAt: number): Promise<void> {
    if (this.#ids.size >= MAX_IDS) this.#ids.delete(this.#ids.keys().next().value as string);
    this.#ids.set(id, createdAt);
    const written = this.#writing.then(() => this.#handle.appendFile(`${createdAt} ${id}\n`));
    this.#writing = written.catch(() => {});
    return written;
  }

  async close(): Promise<void> {
    await this.#writing;
    await this.#handle.close();
  }
}
