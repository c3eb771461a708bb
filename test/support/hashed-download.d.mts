// Types for hashed-download.mjs (plain JS so the bench runs it without a build), for the tests.
import type { IncomingHttpHeaders } from 'node:http';

/** What {@link hashedDownload} saw of one response. */
export interface HashedDownload {
  status: number | undefined;
  headers: IncomingHttpHeaders;
  length: number;
  sha256: string;
  /** The response ended before its end: the server cut it off, or the connection broke. */
  cutOff: boolean;
}

/** GET `url` on a connection of its own and hash the body as it arrives (never held whole). */
export function hashedDownload(url: string): Promise<HashedDownload>;
