import type { DatabaseSync } from 'node:sqlite';
import { type TokenRow, toToken } from './stored-rows.js';
import type { UploadTokenRecord, UploadTokenStore } from './upload-token-store.js';

/** The upload token table, as a migration of the record store's database (see `MIGRATIONS`). */
export const UPLOAD_TOKENS_MIGRATIONS: readonly string[] = [
  `CREATE TABLE upload_tokens (
     hash TEXT PRIMARY KEY NOT NULL CHECK (length(hash) = 64),
     origin TEXT NOT NULL,
     uses INTEGER NOT NULL CHECK (uses > 0),
     used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= uses),
     expires_at INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   ) STRICT`,
  'CREATE INDEX upload_tokens_expiry ON upload_tokens (expires_at)',
];

/**
 * {@link UploadTokenStore} on the record store's SQLite database. A use is one `UPDATE … WHERE used < uses
 * AND expires_at > now RETURNING`: SQLite runs it as one atomic statement, so parallel uses (other
 * connections and processes too) never exceed `uses`. The same statement works on PostgreSQL.
 */
export class SqliteUploadTokens implements UploadTokenStore {
  private readonly insertRow;
  private readonly byHash;
  private readonly useRow;
  private readonly removeExpired;

  constructor(db: DatabaseSync) {
    this.insertRow = db.prepare(
      'INSERT INTO upload_tokens (hash, origin, uses, used, expires_at, created_at) VALUES (?, ?, ?, 0, ?, ?)',
    );
    this.byHash = db.prepare('SELECT * FROM upload_tokens WHERE hash = ?');
    this.useRow = db.prepare(
      'UPDATE upload_tokens SET used = used + 1 WHERE hash = ? AND used < uses AND expires_at > ? RETURNING *',
    );
    this.removeExpired = db.prepare('DELETE FROM upload_tokens WHERE expires_at <= ?');
  }

  async insertUploadToken(token: Omit<UploadTokenRecord, 'used'>): Promise<void> {
    this.insertRow.run(token.hash, token.origin, token.uses, token.expiresAt, token.createdAt);
  }

  async findUploadToken(hash: string): Promise<UploadTokenRecord | undefined> {
    const row = this.byHash.get(hash) as TokenRow | undefined;
    return row === undefined ? undefined : toToken(row);
  }

  async useUploadToken(hash: string, now: number): Promise<UploadTokenRecord | undefined> {
    const row = this.useRow.get(hash, now) as TokenRow | undefined;
    return row === undefined ? undefined : toToken(row);
  }

  async removeExpiredUploadTokens(before: number): Promise<number> {
    return Number(this.removeExpired.run(before).changes);
  }
}
