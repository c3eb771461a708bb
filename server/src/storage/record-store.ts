import type { NostrEvent } from 'nostr-tools/core';
import type { FileKind } from '../metadata/file-metadata.js';
import type { UploadTokenStore } from './upload-token-store.js';

/** One signed file as the database keeps it. */
export interface SignedFileRecord {
  /** SHA-256 of the file, lowercase hex (primary key). */
  hash: string;
  eventId: string;
  pubkey: string;
  fileType: FileKind;
  mimeType: string;
  sizeBytes: number;
  width: number | undefined;
  height: number | undefined;
  authors: string[];
  title: string | undefined;
  description: string | undefined;
  /** The name the file was uploaded under (shown, never used as a path). */
  fileName: string;
  /** Storage key of the file, e.g. `documents/{hash}.png`. */
  fileKey: string;
  /** The signed NIP-94 event exactly as the bunker returned it. */
  event: NostrEvent;
  /** When the record was written, Unix seconds. */
  createdAt: number;
}

/** Thrown by {@link RecordStore.insert} when a record for the hash already exists. */
export class DuplicateRecordError extends Error {
  constructor(readonly hash: string) {
    super(`A record for \`${hash}\` already exists`);
    this.name = 'DuplicateRecordError';
  }
}

/** The relays a new record's event is owed to (see {@link RecordStore.insert}). */
export interface RecordOutbox {
  /** Relays the event goes to (`SIEGEL_RELAYS`). */
  deliverTo: readonly string[];
  /** When the deliveries are due, Unix ms (default now). */
  now?: number;
}

/**
 * The records of signed files, and the upload tokens ({@link UploadTokenStore}). The default is SQLite
 * through `node:sqlite`; a deployment can implement this on PostgreSQL.
 */
export interface RecordStore extends UploadTokenStore {
  findByHash(hash: string): Promise<SignedFileRecord | undefined>;
  findByEventId(eventId: string): Promise<SignedFileRecord | undefined>;
  /**
   * Write `record`, and in the same transaction one relay outbox row per relay in `deliverTo` (due at
   * `now`, default the clock): a committed record is never without the deliveries it is owed.
   *
   * @throws {DuplicateRecordError} when `record.hash` is already recorded (nothing is written).
   */
  insert(record: SignedFileRecord, outbox?: RecordOutbox): Promise<void>;
  /**
   * A cheap, synchronous stamp of the whole store: it differs whenever any record may have changed since the
   * last read, through this store or from anywhere else (another connection or process). The verify API
   * reuses an answer only while the stamp is the one it was built under. Optional: a store that cannot tell
   * leaves it out, and every verify call then reads and checks the record.
   */
  readChangeStamp?(): string;
  close(): void;
}
