import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeliveryStore, PendingDelivery } from './delivery-store.js';
import { type DueRow, parseDueRows } from './stored-rows.js';

/** The outbox table, as migrations of the record store's database (see `MIGRATIONS`). */
export const DELIVERIES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE relay_deliveries (
     event_id TEXT NOT NULL,
     relay TEXT NOT NULL,
     delivered_at INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_try_at INTEGER NOT NULL,
     last_error TEXT,
     PRIMARY KEY (event_id, relay)
   ) STRICT`,
  'CREATE INDEX relay_deliveries_due ON relay_deliveries (next_try_at) WHERE delivered_at IS NULL',
];

/**
 * {@link DeliveryStore} in the record store's SQLite database (table `relay_deliveries`). A claim is one
 * write transaction (`BEGIN IMMEDIATE`): the due rows are read and get `next_try_at` = now + the lease, so
 * no other pass or process sharing the file sends them again while they are on the wire.
 */
export class SqliteDeliveryStore implements DeliveryStore {
  private readonly db: DatabaseSync;
  private readonly delivered: StatementSync;
  private readonly failed: StatementSync;
  private readonly dueRows: StatementSync;
  private readonly lease: StatementSync;
  private readonly deliveredRows: StatementSync;
  private readonly counts: StatementSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.delivered = db.prepare(
      'UPDATE relay_deliveries SET delivered_at = ?, last_error = NULL WHERE event_id = ? AND relay = ?',
    );
    this.failed = db.prepare(
      `UPDATE relay_deliveries SET attempts = attempts + 1, next_try_at = ?, last_error = ?
       WHERE event_id = ? AND relay = ? AND delivered_at IS NULL`,
    );
    this.dueRows = db.prepare(
      `SELECT d.event_id, d.relay, d.attempts, f.event_json
       FROM relay_deliveries d JOIN signed_files f ON f.event_id = d.event_id
       WHERE d.delivered_at IS NULL AND d.next_try_at <= ? ORDER BY d.next_try_at LIMIT ?`,
    );
    this.lease = db.prepare(
      'UPDATE relay_deliveries SET next_try_at = ? WHERE event_id = ? AND relay = ? AND delivered_at IS NULL',
    );
    this.deliveredRows = db.prepare(
      'SELECT relay FROM relay_deliveries WHERE event_id = ? AND delivered_at IS NOT NULL ORDER BY relay',
    );
    this.counts = db.prepare(
      `SELECT count(*) FILTER (WHERE delivered_at IS NULL) AS pending,
              count(*) FILTER (WHERE delivered_at IS NOT NULL) AS delivered FROM relay_deliveries`,
    );
  }

  async markDelivered(eventId: string, relay: string, now: number): Promise<void> {
    this.delivered.run(now, eventId, relay);
  }

  async markFailed(eventId: string, relay: string, reason: string, nextTryAt: number): Promise<void> {
    this.failed.run(nextTryAt, reason.slice(0, 500), eventId, relay);
  }

  async claimDue(now: number, leaseMs: number, limit = 200): Promise<PendingDelivery[]> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const rows = this.dueRows.all(now, limit) as unknown as DueRow[];
      // Every row is leased, also one whose event cannot be read: it must not head every pass.
      for (const row of rows) this.lease.run(now + leaseMs, row.event_id, row.relay);
      this.db.exec('COMMIT');
      return parseDueRows(rows);
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  async deliveredTo(eventId: string): Promise<string[]> {
    return (this.deliveredRows.all(eventId) as { relay: string }[]).map((row) => row.relay);
  }

  async count(): Promise<{ pending: number; delivered: number }> {
    const { pending, delivered } = this.counts.get() as { pending: number; delivered: number };
    return { pending: Number(pending), delivered: Number(delivered) };
  }
}
