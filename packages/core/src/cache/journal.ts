import { type FileHandle, open, readFile, rm } from 'node:fs/promises';

/**
 * What a journal belongs to: the header fields of the cache it extends (structural, so this file needs
 * nothing from sign-cache.ts, which reads journals).
 */
export interface JournalTarget<Entry> {
  pubkey: string;
  site: string;
  selector: string;
  /** Mirror base URLs (absent or empty: none). */
  mirrors?: string[];
  pages: Map<string, Entry>;
}

/** The mirrors of a header as one comparable string (none: ''). */
function mirrorsKey(mirrors: unknown): string {
  return Array.isArray(mirrors) ? mirrors.join('\n') : '';
}

/**
 * The cache's journal, `<cache>.journal`: during a run, each signed batch is appended to it as JSON lines
 * (a header line, then `[path, entry]` lines) instead of rewriting the whole cache, so that a crash or a
 * kill loses at most the batches in flight. The next run folds it into the cache; the end of a run writes
 * the cache and removes the journal.
 */
export function journalFileOf(cacheFile: string): string {
  return `${cacheFile}.journal`;
}

/**
 * Apply a journal to `cache` when its header matches the cache's; returns how many entries were applied.
 * A torn last line (a run killed mid-write) and malformed entries are skipped.
 */
export async function readJournal<Entry>(
  file: string,
  cache: JournalTarget<Entry>,
  isEntry: (value: unknown, pubkey: string) => value is Entry,
): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return 0;
  }
  const lines = text.split('\n');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    return 0;
  }
  if (cache.pubkey === '' && typeof header.pubkey === 'string') cache.pubkey = header.pubkey;
  if (
    header.pubkey !== cache.pubkey ||
    header.site !== cache.site ||
    header.selector !== cache.selector ||
    mirrorsKey(header.mirrors) !== mirrorsKey(cache.mirrors)
  )
    return 0;
  let applied = 0;
  for (const line of lines.slice(1)) {
    if (!line) continue;
    try {
      const [path, entry] = JSON.parse(line) as [unknown, unknown];
      if (typeof path === 'string' && isEntry(entry, cache.pubkey)) {
        cache.pages.set(path, entry);
        applied++;
      }
    } catch {}
  }
  return applied;
}

/** An open journal, appended to batch by batch (appends are serialised by the caller). */
export class CacheJournal<Entry> {
  readonly file: string;
  #handle: FileHandle | undefined;
  readonly #header: string;

  constructor(cacheFile: string, cache: Omit<JournalTarget<Entry>, 'pages'>) {
    this.file = journalFileOf(cacheFile);
    const mirrors = cache.mirrors && cache.mirrors.length > 0 ? { mirrors: cache.mirrors } : {};
    this.#header = `${JSON.stringify({ pubkey: cache.pubkey, site: cache.site, selector: cache.selector, ...mirrors })}\n`;
  }

  /** Append entries; the first call starts a fresh journal with its header. */
  async append(entries: Array<[string, Entry]>): Promise<void> {
    let text = entries.map((entry) => JSON.stringify(entry)).join('\n');
    if (!this.#handle) {
      this.#handle = await open(this.file, 'w');
      text = this.#header + text;
    }
    await this.#handle.write(`${text}\n`);
  }

  /** Close and delete the journal (after the cache was written). */
  async remove(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
    await rm(this.file, { force: true });
  }
}
