import PQueue from 'p-queue';
import { RecordChecker } from '../records/checked-records.js';
import { eventPageKey } from '../records/public-urls.js';
import { EventVerifier, fallbackNotice } from '../records/verify-record.js';
import type { FileStorage } from '../storage/file-storage.js';
import {
  DuplicateRecordError,
  type RecordDatabase,
  type RecordStore,
  type SignedFileRecord,
} from '../storage/record-store.js';
import type { SqliteRecordStore } from '../storage/sqlite-record-store.js';
import { StoredFileHashes } from '../storage/stored-file-hashes.js';
import { SourceFileError, type SourceFiles } from './migrate-source.js';

/** Where a migration reads from: the embedded SQLite store (`openSourceRecords`) and its files. */
export interface MigrationSource {
  records: SqliteRecordStore;
  /** Read without following links (`SourceFiles`): nothing outside the store is copied. */
  storage: SourceFiles;
}

/** Where it writes to (PostgreSQL, and S3 or the same files). */
export interface MigrationTarget {
  records: RecordDatabase;
  storage: FileStorage;
  /** The target's files are the source's (no S3 configured): nothing to copy. */
  sameFiles: boolean;
}

/** What a migration found, copied and checked. */
export interface MigrationReport {
  /** Records in the source. */
  records: number;
  /** Records written to the target by this run. */
  copied: number;
  /** Records the target held already (an earlier, interrupted run). */
  present: number;
  /** Stored files (documents and event pages) copied, and their bytes. */
  files: number;
  bytes: number;
  /** Outbox rows carried over (still owed, or delivered). */
  deliveries: number;
  /** Records that verify in the target (only after a real run). */
  verified: number;
  /** Records that do not verify in the target although they do in the source, with why. */
  failures: { hash: string; reasons: string[] }[];
  /** Records that did not verify in the source either (copied as they are, reported). */
  unverifiedInSource: string[];
  /**
   * Records not copied (in a dry run: that would not be), with why: one of their stored files is a link, no
   * regular file, unreadable, or its key leaves the store ({@link SourceFileError}). Not counted in `copied`,
   * `files`, `bytes`, `deliveries` or the check of the target.
   */
  notCopied: { hash: string; reason: string }[];
}

/** Options of {@link migrateStores}. */
export interface MigrationOptions {
  /** Count what would be copied; write nothing. */
  dryRun?: boolean;
  /** Records read per page (default 200). */
  batch?: number;
  /** Progress lines (default none). */
  log?: (line: string) => void;
}

/**
 * How long the migration's claim on a hash lasts (not renewed): copying one record's three files takes far
 * less, and a run killed while holding one leaves the hash blocked for no longer than this.
 */
const MIGRATION_CLAIM_MS = 10_000;

/** Records copied (or checked) at once. */
const MIGRATION_CONCURRENCY = 8;

/**
 * What one record's migration did: left out (why), or its outbox rows, whether it failed its check in the
 * source, and then the files a dry run counted, or whether the target held it already.
 */
type RecordOutcome =
  | { notCopied: string }
  | { deliveries: number; unverified: boolean; counted?: SourceFile[]; present?: boolean };

interface DeliveryRow {
  relay: string;
  delivered_at: number | null;
}

/**
 * Copy every record of a SQLite store, with its files and its outbox rows, into another store (PostgreSQL,
 * files in S3), then check every record in the target as the verify API does (event id, signature, `x`
 * tag, stored fields, the stored file's hash).
 *
 * Resumable: each record is copied as the signer writes one — files first, then the record with its outbox
 * rows in one transaction — and a record the target holds already is skipped with its files (they were
 * written before it). A record of the same file but another event there (signed on the target) is reported
 * as a failure, never overwritten. A run killed at any point (kill -9) is finished by running it
 * again. Delivered marks are written after the record: a run killed between the two leaves those relays
 * owed until the run is repeated, which marks them again. Upload tokens are not copied: they last minutes;
 * browsers mint new ones.
 *
 * The source is not trusted: a record whose stored files cannot be read safely ({@link SourceFileError}: a
 * link, a FIFO, a key out of the store) is left out, none of its files written, and reported in
 * `notCopied`; the run goes on. A missing file is no such case: the record is copied as it is, fails its
 * check in both stores, and is reported in `unverifiedInSource`.
 */
export async function migrateStores(
  source: MigrationSource,
  target: MigrationTarget,
  options: MigrationOptions = {},
): Promise<MigrationReport> {
  const batch = options.batch ?? 200;
  const log = options.log ?? (() => {});
  const report: MigrationReport = {
    records: 0,
    copied: 0,
    present: 0,
    files: 0,
    bytes: 0,
    deliveries: 0,
    verified: 0,
    failures: [],
    unverifiedInSource: [],
    notCopied: [],
  };
  const deliveriesOf = source.records.db.prepare(
    'SELECT relay, delivered_at FROM relay_deliveries WHERE event_id = ? ORDER BY relay',
  );
  // One verifier for both stores, with the WebAssembly Schnorr engine the server verifies with (an unprepared
  // one checks in pure JavaScript, about 5× the CPU: 1 050 records cost 5 s per run): the target's check of a
  // copied event then finds the source's verified triple in its memo.
  const verifier = new EventVerifier();
  await verifier.prepare({ onFallback: (reason) => log(fallbackNotice(reason)) });
  const sourceChecker = new RecordChecker(source.records, new StoredFileHashes(source.storage), verifier);
  // Records are independent (each written under its own claim), so several are copied at once: one at a
  // time, each waited on its database and store round trips in turn (1 050 records took 36 s).
  const queue = new PQueue({ concurrency: MIGRATION_CONCURRENCY });
  /** One record: read (or, when nothing is copied, checked) before anything is written for it. */
  const migrateRecord = async (record: SignedFileRecord): Promise<RecordOutcome> => {
    const there = !options.dryRun && (await target.records.findByHash(record.hash)) !== undefined;
    let files: SourceFile[] = [];
    try {
      if (!there) files = await readFiles(record, source.storage, options.dryRun || target.sameFiles);
    } catch (error) {
      if (!(error instanceof SourceFileError)) throw error;
      return { notCopied: error.message };
    }
    const rows = deliveriesOf.all(record.eventId) as unknown as DeliveryRow[];
    const unverified = !(await sourceChecker.check(record)).verdict.verified;
    if (options.dryRun) return { deliveries: rows.length, unverified, counted: files };
    const present = there || (await copyClaimed(record, rows, files, target, report));
    // Marked again for a record found present: a run killed before its marks leaves none owed twice.
    for (const row of rows) {
      if (row.delivered_at !== null)
        await target.records.deliveries.markDelivered(record.eventId, row.relay, row.delivered_at);
    }
    return { deliveries: rows.length, unverified, present };
  };
  for await (const page of pagesOf(source.records, batch)) {
    const outcomes = await Promise.all(page.map((record) => queue.add(() => migrateRecord(record))));
    // Folded in the source's order, so the report reads the same however the copies interleaved.
    page.forEach((record, index) => {
      const outcome = outcomes[index] as RecordOutcome;
      report.records += 1;
      if ('notCopied' in outcome) {
        report.notCopied.push({ hash: record.hash, reason: outcome.notCopied });
        return;
      }
      report.deliveries += outcome.deliveries;
      if (outcome.unverified) report.unverifiedInSource.push(record.hash);
      for (const file of outcome.counted ?? []) {
        report.files += 1;
        report.bytes += file.size;
      }
      if (outcome.present === true) report.present += 1;
      else if (outcome.present === false) report.copied += 1;
    });
    log(
      `${report.records} records read, ${report.copied} copied, ${report.present} already there${report.notCopied.length > 0 ? `, ${report.notCopied.length} not copied` : ''}`,
    );
  }
  if (options.dryRun) return report;
  await verifyTarget(source, target, report, batch, verifier);
  log(`${report.verified} of ${report.records} records verify in the target`);
  return report;
}

/**
 * Copy `record`'s files and write it with its outbox rows under a claim on its hash, as the signer does, so
 * that a server already running on the target and signing the same file meanwhile neither loses its files
 * nor gets its event pages overwritten. Resolves `true` when the target holds a record of the hash already
 * (then nothing was copied).
 */
async function copyClaimed(
  record: SignedFileRecord,
  rows: readonly DeliveryRow[],
  files: readonly SourceFile[],
  target: MigrationTarget,
  report: MigrationReport,
): Promise<boolean> {
  // An upload's claim is renewed while it works (`CLAIM_LEASE_MS`, 60 s by default): wait a little past that.
  const deadline = Date.now() + 61_000;
  for (;;) {
    const claim = await target.records.claimHash(record.hash, MIGRATION_CLAIM_MS);
    if (claim !== undefined) {
      try {
        if ((await target.records.findByHash(record.hash)) !== undefined) return true;
        if (!target.sameFiles) await putFiles(files, target.storage, report);
        await target.records.insert(record, {
          deliverTo: rows.map((row) => row.relay),
          now: Date.now(),
          claim,
        });
        return false;
      } catch (error) {
        if (error instanceof DuplicateRecordError) return true;
        throw error;
      } finally {
        // Released by the insert on success; here after anything else (a no-op when already gone).
        await target.records.releaseClaim(record.hash, claim);
      }
    }
    // An upload on the target holds the hash: wait for its record, or for its claim to end.
    if ((await target.records.findByHash(record.hash)) !== undefined) return true;
    if (Date.now() > deadline) {
      throw new Error(
        `\`${record.hash}\` is being written on the target and its claim did not end; run again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every record of `records`, in hash order, `batch` at a time. */
async function* pagesOf(records: RecordStore, batch: number): AsyncIterable<SignedFileRecord[]> {
  let after: string | undefined;
  for (;;) {
    const page = await records.listRecords(after, batch);
    if (page.length === 0) return;
    yield page;
    after = page.at(-1)?.hash;
  }
}

/** The stored keys of a record: its file and its two event pages. */
function keysOf(record: SignedFileRecord): string[] {
  return [record.fileKey, eventPageKey(record.hash, 'index.html'), eventPageKey(record.hash, 'index.json')];
}

/** A stored file of a source record: its key, its size, and its bytes when they are to be copied. */
interface SourceFile {
  key: string;
  size: number;
  bytes?: Uint8Array;
}

/**
 * The stored files of `record` in the source, all of them read (`sizesOnly`: only opened and measured)
 * before any is written, so that a record refused for one of them leaves nothing in the target. A missing
 * file is left out: it is copied as missing, and the record then fails its check in both stores.
 *
 * @throws {SourceFileError} for a file that is a link, no regular file, unreadable, or has no storage key.
 */
async function readFiles(
  record: SignedFileRecord,
  from: SourceFiles,
  sizesOnly: boolean,
): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const key of keysOf(record)) {
    if (sizesOnly) {
      const size = await from.sizeOf(key);
      if (size !== undefined) files.push({ key, size });
    } else {
      const bytes = await from.get(key);
      if (bytes !== undefined) files.push({ key, size: bytes.byteLength, bytes });
    }
  }
  return files;
}

async function putFiles(
  files: readonly SourceFile[],
  to: FileStorage,
  report: MigrationReport,
): Promise<void> {
  for (const { key, bytes } of files) {
    if (bytes === undefined) continue;
    await to.put(key, bytes);
    report.files += 1;
    report.bytes += bytes.byteLength;
  }
}

/** Check every source record in the target: one that verifies in the source must verify there too. */
async function verifyTarget(
  source: MigrationSource,
  target: MigrationTarget,
  report: MigrationReport,
  batch: number,
  verifier: EventVerifier,
): Promise<void> {
  const checker = new RecordChecker(target.records, new StoredFileHashes(target.storage), verifier);
  const unverified = new Set(report.unverifiedInSource);
  const notCopied = new Set(report.notCopied.map((record) => record.hash));
  const queue = new PQueue({ concurrency: MIGRATION_CONCURRENCY });
  for await (const page of pagesOf(source.records, batch)) {
    const checks = await Promise.all(
      page.map((record) =>
        notCopied.has(record.hash) ? undefined : queue.add(() => checker.findByHash(record.hash)),
      ),
    );
    for (const [index, record] of page.entries()) {
      if (notCopied.has(record.hash)) continue;
      const checked = checks[index];
      // The target may hold its own signature of the same file (signed there before the migration): the
      // source's record was then not copied, which is a failure however well the other one verifies.
      if (checked !== undefined && checked.record.eventId !== record.eventId)
        report.failures.push({
          hash: record.hash,
          reasons: [
            `The target holds another record of this file (event ${checked.record.eventId}), not the source's (event ${record.eventId}).`,
          ],
        });
      else if (checked?.verdict.verified) report.verified += 1;
      else if (!unverified.has(record.hash))
        report.failures.push({
          hash: record.hash,
          reasons: checked?.verdict.reasons ?? ['missing in the target'],
        });
    }
  }
}
