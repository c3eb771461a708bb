import { npubEncode } from 'nostr-tools/nip19';
import type { FileUrls } from './public-urls.js';
import type { SignedFileRecord } from './storage/record-store.js';

/** The public JSON of a signed file: the fields the sign API, the verify API and `index.json` share. */
export interface RecordDescription {
  hash: string;
  file_type: SignedFileRecord['fileType'];
  mime_type: string;
  size_bytes: number;
  dimensions?: { width: number; height: number };
  metadata: { author: string; authors: string[]; title: string | null; description?: string };
  signer: { pubkey: string; npub: string };
  signed_at: string;
  urls: FileUrls;
  event: SignedFileRecord['event'];
}

/**
 * Describe a record for the API. `metadata.author` joins several authors with `, ` (the existing API's
 * single string); `metadata.authors` lists them one by one.
 */
export function describeRecord(record: SignedFileRecord, urls: FileUrls): RecordDescription {
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
    signer: { pubkey: record.pubkey, npub: npubEncode(record.pubkey) },
    signed_at: new Date(record.event.created_at * 1000).toISOString(),
    urls,
    event: record.event,
  };
}
