// What `verifySite` reads a site through: a directory (dir-source.ts) or a live site (url-source.ts), each
// giving the pages with what one parse of them says, and loading the events their blocks name.
import type { PageCheckReading } from '../page/analyze.js';
import type { PageOrigin } from '../page/page-facts.js';
import { describeByteSize } from '../text/byte-size.js';

/**
 * Largest event file (`verify/{id}.json`) read, in bytes: 1 MiB. A page event holds a title, a description,
 * a URL and hashes; the bunker signs none over 768 KiB.
 */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** A page's bytes, what one parse of them says (under the current spec) and its HTTP `Content-Type`. */
export interface PageBytes {
  /** The page's bytes again, for a reading under another spec (rare: the current spec is read already). */
  bytes: () => Buffer;
  reading: PageCheckReading;
  /** The HTTP `Content-Type` it was served with (a URL), for a reading under another spec. */
  contentType?: string | undefined;
}

/**
 * A page of a source: its bytes, what one parse of them says and the address it is judged at — or why it
 * could not be read.
 */
export type SourcePage =
  | (PageBytes & {
      name: string;
      address: string | undefined;
      /** The address and site URL its reading's `loads` were read against, when they were. */
      origin?: PageOrigin;
      /** The same page as a plain client got it, when asked for (URL mode, `checkCloaking`). */
      plain?: PageBytes;
    })
  | { name: string; problem: string; code: 'page.too_large' | 'page.unavailable' };

/** An event as read (its shape is the rule book's to judge) and where it was read. */
export type LoadedEvent = { event: unknown; from: string };

/** The event file is not there (no file, HTTP 404/410): the event may still be on a relay. */
export class MissingEvent extends Error {}

/** A site to check, page by page. */
export interface Source {
  /** The pages, in order; a source may parse ahead of the page the caller is at. */
  pages(): AsyncIterable<SourcePage>;
  loadEvent(id: string, verifyUrl: string | undefined, page: string): Promise<LoadedEvent>;
  /** The error that ends the whole check (its time ran out), once there is one. */
  expired?(): Error | undefined;
  /**
   * The bytes of the site's file at manifest path `path` (`/assets/a.js`), for the site `page` is part of:
   * a directory's file under it; a URL's file under `siteUrl`'s path on the checked origin (without
   * `siteUrl`: under the start URL's path), fetched by the same careful client, bounded like a page.
   * @throws {Error} naming the file when it cannot be read (missing, HTTP error, too large).
   */
  readSiteFile(path: string, page: string, siteUrl: string | undefined): Promise<Buffer>;
  /** How many pages `pages()` yields in all, once it knows (a directory, after listing it). */
  total?(): number | undefined;
}

/** The problem text of a page over the size limit (not read, not checked). */
export function tooLarge(size: number, limit: number): string {
  return `page too large: ${describeByteSize(size)}, more than the limit of ${describeByteSize(limit)}; not checked — raise it with \`--max-page-bytes\``;
}
