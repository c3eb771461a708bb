import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ChunkReader, PageTooLargeError } from '../fs/file-io.js';
import { findPages } from '../fs/find-pages.js';
import { HEX64 } from '../nostr/crypto.js';
import { readPageForCheck } from '../page/analyze.js';
import { pageUrl } from '../page/page-event.js';
import { ParsePool } from '../page/parse-pool.js';
import { formatByteSize } from '../text/byte-size.js';
import {
  type LoadedEvent,
  MAX_EVENT_BYTES,
  MissingEvent,
  type Source,
  type SourcePage,
  tooLarge,
} from './site-source.js';

/** Pages read at once (synchronously, see `ChunkReader`), as a signing run reads them. */
const READ_CHUNK = 32;
/** Pages read ahead of the one being judged (parsed or being parsed): what bounds memory. */
const PARSE_AHEAD = 64;
/** Directories with fewer pages are parsed on the main thread: workers pay off only with pages to parse. */
const PARSE_POOL_MIN_PAGES = 64;

/**
 * A signed site in a directory, read the way a signing run reads it: pages in synchronous chunks
 * (`ChunkReader`), parsed ahead on worker threads (`ParsePool`, `parseWorkers` of them) while the main
 * thread loads events and judges, at most {@link PARSE_AHEAD} pages in flight. A page is judged at `site`
 * joined with its path (no address without `site`).
 */
export function dirSource(
  dir: string,
  options: { maxPageBytes: number; site: string | undefined; selector: string; parseWorkers: number },
): Source {
  // Event files are small and read one at a time, synchronously: no round trip through libuv per file.
  const events = new ChunkReader({ maxBytes: MAX_EVENT_BYTES });
  let total: number | undefined;
  return {
    total: () => total,
    async *pages() {
      const paths = await findPages(dir);
      total = paths.length;
      const pool =
        paths.length >= PARSE_POOL_MIN_PAGES
          ? ParsePool.create(options.parseWorkers, options.selector)
          : undefined;
      const reader = new ChunkReader({ maxBytes: options.maxPageBytes });
      const ahead: Array<Promise<SourcePage>> = [];
      try {
        for (let start = 0; start < paths.length; start += READ_CHUNK) {
          const chunk = reader.read(paths.slice(start, start + READ_CHUNK).map((path) => join(dir, path)));
          for (const [offset, bytes] of chunk.entries()) {
            const page = readPage(dir, paths[start + offset] as string, bytes, reader, pool, options);
            // Settled later, in order; a failure must not go unhandled meanwhile (or after an early stop).
            page.catch(() => undefined);
            ahead.push(page);
          }
          while (ahead.length > PARSE_AHEAD) yield await (ahead.shift() as Promise<SourcePage>);
        }
        while (ahead.length > 0) yield await (ahead.shift() as Promise<SourcePage>);
      } finally {
        await pool?.close();
      }
    },
    async readSiteFile(path) {
      // A manifest path is `/` + a path under the directory; one that leaves it (`/../x`) is not the site's.
      const file = join(dir, path);
      if (relative(dir, file).split(sep).includes('..')) throw new Error(`\`${path}\` is outside the site`);
      const size = await stat(file).then(
        (info) => info.size,
        () => undefined,
      );
      if (size === undefined) throw new Error(`\`${path.slice(1)}\` is missing`);
      if (size > options.maxPageBytes)
        throw new Error(`\`${path.slice(1)}\` is larger than ${formatByteSize(options.maxPageBytes)}`);
      return readFile(file);
    },
    async loadEvent(id) {
      if (!HEX64.test(id)) throw new Error(`event id \`${id}\` is not 64 hex characters`);
      const [bytes] = events.read([join(dir, 'verify', `${id}.json`)]);
      if (bytes instanceof PageTooLargeError)
        throw new Error(`event file \`verify/${id}.json\` is larger than ${formatByteSize(MAX_EVENT_BYTES)}`);
      if (bytes instanceof Error || bytes === undefined)
        throw new MissingEvent(`event file \`verify/${id}.json\` is missing`);
      try {
        return {
          event: JSON.parse(bytes.toString('utf8')) as unknown,
          from: `verify/${id}.json`,
        } satisfies LoadedEvent;
      } catch (error) {
        throw new Error(`event file \`verify/${id}.json\` is not valid: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * One page as read by the chunk reader: parsed on a worker when there is a pool (the bytes go there, and a
 * reading under another spec reads the file again), else here and now — keeping a copy of the bytes, since
 * the reader reuses its buffer for the next chunk.
 */
async function readPage(
  dir: string,
  name: string,
  read: Buffer | Error,
  reader: ChunkReader,
  pool: ParsePool | undefined,
  options: { site: string | undefined; selector: string },
): Promise<SourcePage> {
  if (read instanceof PageTooLargeError)
    return { name, problem: tooLarge(read.size, read.limit), code: 'page.too_large' };
  if (read instanceof Error)
    return { name, problem: `cannot read: ${read.message}`, code: 'page.unavailable' };
  // Its loads read in the same parse, against the page's address and the site (what the site manifest's
  // check compares: it parses the page again only when the manifest names another site URL).
  const origin =
    options.site === undefined ? undefined : { address: pageUrl(options.site, name), siteUrl: options.site };
  const address = origin?.address;
  // A directory has no HTTP header: the bytes alone say how a browser decodes them.
  if (pool) {
    const reading = await pool.read(read, origin);
    return {
      name,
      bytes: () => readFileSync(join(dir, name)),
      reading,
      address,
      ...(origin ? { origin } : {}),
    };
  }
  const bytes = reader.owns(read) ? read : Buffer.from(read);
  const reading = readPageForCheck(bytes, options.selector, { origin });
  return { name, bytes: () => bytes, reading, address, ...(origin ? { origin } : {}) };
}
