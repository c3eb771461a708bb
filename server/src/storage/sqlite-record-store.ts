import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  DuplicateRecordError,
  type RecordDatabase,
  type RecordOutbox,
  type SignedFileRecord,
} from './record-store.js';
import { DELIVERIES_MIGRATIONS, SqliteDeliveryStore } from './sqlite-deliveries.js';
import { SqliteUploadTokens, UPLOAD_TOKENS_MIGRATIONS } from './sqlite-upload-tokens.js';
import { ClaimLostError } from './store-errors.js';
import { type RecordRow, toRecord, toRow } from './stored-rows.js';
import type { UploadTokenRecord } from './upload-token-store.js';

/** Schema migrations, applied in order; `PRAGMA user_version` holds how many ran. Append, never edit. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE signed_files (
     hash TEXT PRIMARY KEY NOT NULL CHECK (length(hash) = 64),
     event_id TEXT NOT NULL UNIQUE,
     pubkey TEXT NOT NULL,
     file_type TEXT NOT NULL,
     mime_type TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     width INTEGER,
     height INTEGER,
     authors TEXT NOT NULL,
     title TEXT,
     description TEXT,
     file_name TEXT NOT NULL,
     file_key TEXT NOT NULL,
     event_json TEXT NOT NULL,
     created_at INTEGER NOT NULL
   ) STRICT`,
  'CREATE INDEX signed_files_pubkey ON signed_files (pubkey, created_at)',
  // The relay outbox (sqlite-deliveries.ts): one row per signed event and relay.
  ...DELIVERIES_MIGRATIONS,
  // Upload tokens for browsers (sqlite-upload-tokens.ts): only their SHA-256 is kept.
  ...UPLOAD_TOKENS_MIGRATIONS,
  // Hash claims (record-store.ts HashClaims): who may write a hash's files and record right now.
  `CREATE TABLE hash_claims (
     hash TEXT PRIMARY KEY NOT NULL,
     token TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   ) STRICT`,
];

/**
 * {@link RecordStore} on SQLite (`node:sqlite`, built into Node; WAL journal). Opens or creates the database
 * at `path` (`:memory:` for tests) and runs pending {@link MIGRATIONS} in one transaction.
 *
 * @example
 * ```ts
 * const records = new SqliteRecordStore('./data/siegel.sqlite');
 * ```
 */
export class SqliteRecordStore implements RecordDatabase {
  readonly db: DatabaseSync;
  readonly deliveries: SqliteDeliveryStore;
  private readonly byHash;
  private readonly page;
  private readonly someHashes;
  private readonly takeClaim;
  private readonly extendClaim;
  private readonly dropClaim;
  private readonly claimExpiry;
  private readonly byEventId;
  private readonly insertRow;
  private readonly insertDelivery;
  private readonly changeStamp;
  private readonly uploadTokens;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    migrate(this.db);
    this.uploadTokens = new SqliteUploadTokens(this.db);
    this.deliveries = new SqliteDeliveryStore(this.db);
    this.someHashes = this.db.prepare(
      'SELECT hash FROM signed_files WHERE hash IN (SELECT value FROM json_each(?))',
    );
    this.page = this.db.prepare('SELECT * FROM signed_files WHERE hash > ? ORDER BY hash LIMIT ?');
    this.takeClaim = this.db.prepare(
      `INSERT INTO hash_claims (hash, token, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (hash) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
       WHERE hash_claims.expires_at <= ? RETURNING token`,
    );
    this.extendClaim = this.db.prepare('UPDATE hash_claims SET expires_at = ? WHERE hash = ? AND token = ?');
    this.dropClaim = this.db.prepare('DELETE FROM hash_claims WHERE hash = ? AND token = ?');
    this.claimExpiry = this.db.prepare('SELECT expires_at FROM hash_claims WHERE hash = ?');
    this.byHash = this.db.prepare('SELECT * FROM signed_files WHERE hash = ?');
    this.byEventId = this.db.prepare('SELECT * FROM signed_files WHERE event_id = ?');
    // `data_version` changes when another connection (or process) commits; `total_changes()` counts this
    // connection's own inserts, updates and deletes. Together they change whenever any row may have.
    this.changeStamp = this.db.prepare(
      'SELECT data_version AS version, total_changes() AS changes FROM pragma_data_version',
    );
    this.insertRow = this.db.prepare(
      `INSERT INTO signed_files (hash, event_id, pubkey, file_type, mime_type, size_bytes, width, height, authors,
         title, description, file_name, file_key, event_json, created_at)
       VALUES (:hash, :event_id, :pubkey, :file_type, :mime_type, :size_bytes, :width, :height, :authors,
         :title, :description, :file_name, :file_key, :event_json, :created_at)`,
    );
    this.insertDelivery = this.db.prepare(
      'INSERT OR IGNORE INTO relay_deliveries (event_id, relay, attempts, next_try_at) VALUES (?, ?, 0, ?)',
    );
  }

  async findByHash(hash: string): Promise<SignedFileRecord | undefined> {
    const row = this.byHash.get(hash) as RecordRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  async findByEventId(eventId: string): Promise<SignedFileRecord | undefined> {
    const row = this.byEventId.get(eventId) as RecordRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  async insert(record: SignedFileRecord, outbox?: RecordOutbox): Promise<void> {
    const now = outbox?.now ?? Date.now();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      if (outbox?.claim !== undefined && this.dropClaim.run(record.hash, outbox.claim).changes !== 1) {
        throw new ClaimLostError(record.hash);
      }
      this.insertRow.run(toRow(record));
      for (const relay of outbox?.deliverTo ?? []) this.insertDelivery.run(record.eventId, relay, now);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      if (/UNIQUE constraint failed: signed_files\.(hash|event_id)/.test((error as Error).message)) {
        throw new DuplicateRecordError(record.hash);
      }
      throw error;
    }
  }

  async findHashes(hashes: readonly string[]): Promise<Set<string>> {
    const rows = this.someHashes.all(JSON.stringify(hashes)) as { hash: string }[];
    return new Set(rows.map((row) => row.hash));
  }

  async listRecords(after: string | undefined, limit: number): Promise<SignedFileRecord[]> {
    return (this.page.all(after ?? '', limit) as unknown as RecordRow[]).map(toRecord);
  }

  async claimHash(hash: string, leaseMs: number): Promise<string | undefined> {
    const now = Date.now();
    const row = this.takeClaim.get(hash, randomBytes(16).toString('hex'), now + leaseMs, now) as
      | { token: string }
      | undefined;
    return row?.token;
  }

  async renewClaim(hash: string, claim: string, leaseMs: number): Promise<boolean> {
    return Number(this.extendClaim.run(Date.now() + leaseMs, hash, claim).changes) === 1;
  }

  async releaseClaim(hash: string, claim: string): Promise<void> {
    this.dropClaim.run(hash, claim);
  }

  async claimEndsIn(hash: string): Promise<number | undefined> {
    const row = this.claimExpiry.get(hash) as { expires_at: number } | undefined;
    const left = row === undefined ? 0 : row.expires_at - Date.now();
    return left > 0 ? left : undefined;
  }

  insertUploadToken(token: Omit<UploadTokenRecord, 'used'>): Promise<void> {
    return this.uploadTokens.insertUploadToken(token);
  }

  findUploadToken(hash: string): Promise<UploadTokenRecord | undefined> {
    return this.uploadTokens.findUploadToken(hash);
  }

  useUploadToken(hash: string, now: number): Promise<UploadTokenRecord | undefined> {
    return this.uploadTokens.useUploadToken(hash, now);
  }

  removeExpiredUploadTokens(before: number): Promise<number> {
    return this.uploadTokens.removeExpiredUploadTokens(before);
  }

  /** `{data_version}:{total_changes()}`: see {@link RecordStore.readChangeStamp}. */
  readChangeStamp(): string {
    const { version, changes } = this.changeStamp.get() as { version: number; changes: number };
    return `${version}:${changes}`;
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}

function migrate(db: DatabaseSync): void {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > MIGRATIONS.length) {
    throw new Error(
      `Database schema version \`${version}\` is newer than this server (${MIGRATIONS.length})`,
    );
  }
  if (version === MIGRATIONS.length) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const migration of MIGRATIONS.slice(version)) db.exec(migration);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
