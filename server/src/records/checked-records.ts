import type { RecordStore, SignedFileRecord } from '../storage/record-store.js';
import type { StoredFileHash, StoredFileHashes } from '../storage/stored-file-hashes.js';
import { bindRecord, EventVerifier, type RecordVerdict } from './verify-record.js';

/** A stored record, checked: what it says, what its signed event says, and whether the two agree. */
export interface CheckedRecord {
  /** The record as stored. */
  stored: SignedFileRecord;
  /** The record as its signed event states it ({@link bindRecord}): what every answer reports. */
  record: SignedFileRecord;
  verdict: RecordVerdict;
  /** The stamp of the stored file the verdict was made under; `undefined`: not reusable. */
  fileVersion: string | undefined;
  /**
   * The stored file's check: its digest under that stamp (`undefined`: missing, or unreadable with `error`).
   * The served file routes send a file only while it is this digest, hashing it again on the way out.
   */
  file: StoredFileHash;
}

/**
 * Reads records and checks each on every read ({@link EventVerifier.verifyRecord}): its event, its stored fields against
 * the event, and its stored file against the hash (the file's digest remembered while its stamp is
 * unchanged, see {@link StoredFileHashes}). The verify API, the verify pages, the badge, the event pages and
 * the served files all read records through it.
 *
 * @example
 * ```ts
 * const checker = new RecordChecker(records, new StoredFileHashes(storage));
 * const checked = await checker.findByHash(hash);
 * checked?.verdict.verified;
 * ```
 */
export class RecordChecker {
  constructor(
    readonly records: RecordStore,
    readonly hashes: StoredFileHashes,
    /** The memo and engine the checks run with (default: one of this checker's own). */
    readonly verifier: EventVerifier = new EventVerifier(),
  ) {}

  /** The record of `hash`, checked; `undefined` when there is none. */
  async findByHash(hash: string): Promise<CheckedRecord | undefined> {
    const stored = await this.records.findByHash(hash);
    return stored === undefined ? undefined : this.check(stored);
  }

  /** The record whose stored event id is `eventId`, checked; `undefined` when there is none. */
  async findByEventId(eventId: string): Promise<CheckedRecord | undefined> {
    const stored = await this.records.findByEventId(eventId);
    return stored === undefined ? undefined : this.check(stored);
  }

  /** Check one stored record now. */
  async check(stored: SignedFileRecord): Promise<CheckedRecord> {
    const record = bindRecord(stored);
    const file = await this.hashes.hashOf(record.fileKey);
    const verdict = this.verifier.verifyRecord(stored, record, file.digest, file.error);
    return { stored, record, verdict, fileVersion: file.version, file };
  }
}
