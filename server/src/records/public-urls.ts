import type { SignedFileRecord } from '../storage/record-store.js';

/** The public addresses of one signed file, as the sign and verify APIs return them. */
export interface FileUrls {
  /** The file itself: `{cdn_url}/documents/{hash}.{ext}`. */
  file: string;
  /** The event page, written for people and language models: `{cdn_url}/events/{hash}/index.html`. */
  static_page: string;
  /** The live verify page of the event: `{base_url}/verify/{event id}`. */
  event_page: string;
  /**
   * The verify page for people: `{base_url}/verify?hash={hash}`, which shows the verdict on this hash (rendered
   * on the server, so it needs no script). The existing VisionFusen clients read `verify` as this page.
   */
  verify: string;
  /** The open verify API (JSON): `{base_url}/api/verify?hash={hash}`. */
  verify_api: string;
  /** The event and record as JSON beside the event page: `{cdn_url}/events/{hash}/index.json`. */
  event_json: string;
  /** The file by hash alone, as Blossom servers serve it (BUD-01): `{cdn_url}/{hash}`. */
  blossom: string;
}

/** Storage key of a signed file. */
export function documentKey(hash: string, extension: string): string {
  return `documents/${hash}.${extension}`;
}

/** Storage key of a file's event page (`index.html`) or its JSON (`index.json`). */
export function eventPageKey(hash: string, name: 'index.html' | 'index.json'): string {
  return `events/${hash}/${name}`;
}

/** The verify page of a hash: `{base_url}/verify?hash={hash}`. */
export function verifyPageUrl(baseUrl: string, hash: string): string {
  return `${baseUrl}/verify?hash=${hash}`;
}

/** The verify API answer for a hash: `{base_url}/api/verify?hash={hash}`. */
export function verifyApiUrl(baseUrl: string, hash: string): string {
  return `${baseUrl}/api/verify?hash=${hash}`;
}

/** The public URLs of a record (see {@link FileUrls}). `baseUrl` and `cdnUrl` have no trailing slash. */
export function fileUrls(
  record: Pick<SignedFileRecord, 'hash' | 'fileKey' | 'eventId'>,
  baseUrl: string,
  cdnUrl: string,
): FileUrls {
  return {
    file: `${cdnUrl}/${record.fileKey}`,
    static_page: `${cdnUrl}/${eventPageKey(record.hash, 'index.html')}`,
    event_page: `${baseUrl}/verify/${record.eventId}`,
    verify: verifyPageUrl(baseUrl, record.hash),
    verify_api: verifyApiUrl(baseUrl, record.hash),
    event_json: `${cdnUrl}/${eventPageKey(record.hash, 'index.json')}`,
    blossom: `${cdnUrl}/${record.hash}`,
  };
}
