import { npubEncode } from 'nostr-tools/nip19';
import type { SignedFileRecord } from '../storage/record-store.js';
import { readFileEvent } from './file-event.js';
import type { FileUrls } from './public-urls.js';

/** The public JSON of a signed file: the fields the sign API, the verify API and `index.json` share. */
export interface RecordDescription {
  hash: string;
  file_type: SignedFileRecord['fileType'];
  mime_type: string;
  size_bytes: number;
  dimensions?: { width: number; height: number };
  metadata: { author: string; authors: string[]; title: string | null; description?: string };
  signer: { pubkey: string; npub: string };
  /**
   * Who uploaded the file with a Nostr key (Blossom), as the event's `p` tag names them; absent for uploads
   * with a sign token. The signer (the service's key) vouches for it; the uploader signed nothing.
   */
  uploader?: { pubkey: string; npub: string };
  signed_at: string;
  urls: FileUrls;
  event: SignedFileRecord['event'];
}

/**
 * The npub of a hex public key, or `(not a valid public key)` for anything else (a stored record may have
 * been altered into any text; the verdict says so, the description must not fail).
 */
export function npubOf(pubkey: string): string {
  try {
    return npubEncode(pubkey);
  } catch {
    return '(not a valid public key)';
  }
}

/** Unix seconds as an ISO 8601 time, or the value as text when it is not a time. */
export function isoTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}

/**
 * Describe a record for the API. `metadata.author` joins several authors with `, ` (the existing API's
 * single string); `metadata.authors` lists them one by one; `uploader` is the event's `p` tag. Reading answers describe the record as its
 * signed event states it (`bindRecord`), never the stored fields as such.
 */
export function describeRecord(record: SignedFileRecord, urls: FileUrls): RecordDescription {
  const { uploader } = readFileEvent(record.event);
  return {
    hash: record.hash,
    file_type: record.fileType,
    mime_type: record.mimeType,
    size_bytes: record.sizeBytes,
    ...(record.width === undefined || record.height === undefined
      ? {}
      : { dimensions: { width: record.width, height: record.height } }),
    metadata: {
      author: record.authors.join(', '),
      authors: record.authors,
      title: record.title ?? null,
      ...(record.description === undefined ? {} : { description: record.description }),
    },
    signer: { pubkey: record.pubkey, npub: npubOf(record.pubkey) },
    ...(uploader === undefined ? {} : { uploader: { pubkey: uploader, npub: npubOf(uploader) } }),
    signed_at: isoTime(record.event.created_at),
    urls,
    event: record.event,
  };
}
