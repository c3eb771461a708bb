import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { retryDelayMs as backoffMs } from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';

/** First wait before an event is offered to a relay again, in ms; doubled per failed attempt. */
export const FIRST_RETRY_MS = 30_000;
/** Longest wait between two attempts, in ms. */
export const LONGEST_RETRY_MS = 60 * 60_000;

/** The wait after `attempts` failed attempts: `first` (30 s), twice that, four times, … at most 1 h. */
export function retryDelayMs(attempts: number, first = FIRST_RETRY_MS): number {
  return backoffMs(attempts, first, LONGEST_RETRY_MS);
}

/** An event that still waits for one relay. */
export interface PendingDelivery {
  eventId: string;
  relay: string;
  attempts: number;
  /** The signed event, as the record stores it. */
  event: NostrEvent;
}

/**
 * The durable outbox of the file server, in its SQLite database (table `relay_deliveries`, one row per
 * event and relay): which relays took each event (`OK` true), which still need it, how often it failed
 * there and when to try again. The rows of a new event are written in the transaction that writes its
 * record (`SqliteRecordStore.insert` with `deliverTo`); the publisher loop of {@link RelayPublishing}
 * claims what is due from here. Nothing is lost when a relay is down or the server restarts.
 *
 * A claim is a lease: claimed rows get `next_try_at` = now + the lease, in one write transaction, so a
 * second pass (or, once several instances share a database, another instance) does not send them again
 * while they are on the wire; if the process dies meanwhile, they are due again when the lease ends.
 * (On PostgreSQL the same claim is `SELECT … FOR UPDATE SKIP LOCKED` and an `UPDATE`.)
 */
export class RelayDeliveries {
  private readonly db: DatabaseSync;
  private readonly delivered: StatementSync;
  private readonly failed: StatementSync;
  private readonly dueRows: StatementSync;
  private readonly lease: StatementSync;
  private readonly deliveredRows: StatementSync;
  private readonly counts: StatementSync;
  private readonly firstRetryMs: number;

  /** `firstRetryMs`: the wait after the first failed attempt (`RELAY_RETRY_MS`, default 30 s). */
  constructor(db: DatabaseSync, options: { firstRetryMs?: number } = {}) {
    this.db = db;
    this.firstRetryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
    this.delivered = db.prepare(
      'UPDATE relay_deliveries SET delivered_at = ?, last_error = NULL WHERE event_id = ? AND relay = ?',
    );
    this.failed = db.prepare(
      `UPDATE relay_deliveries SET attempts = attempts + 1, next_try_at = ?, last_error = ?
       WHERE event_id = ? AND relay = ? AND delivered_at IS NULL`,
    );
    this.dueRows = db.prepare(
      `SELECT d.event_id AS eventId, d.relay AS relay, d.attempts AS attempts, f.event_json AS eventJson
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

  /** `relay` answered `OK` true for `eventId`. */
  markDelivered(eventId: string, relay: string, now: number): void {
    this.delivered.run(now, eventId, relay);
  }

  /** `relay` did not take `eventId` (refused, unreachable, no answer): try again after the backoff. */
  markFailed(eventId: string, relay: string, reason: string, attempts: number, now: number): void {
    this.failed.run(
      now + retryDelayMs(attempts + 1, this.firstRetryMs),
      reason.slice(0, 500),
      eventId,
      relay,
    );
  }

  /** Deliveries whose next try has come, oldest first, at most `limit` (read only; see {@link claimDue}). */
  due(now: number, limit = 200): PendingDelivery[] {
    return parseRows(this.dueRows.all(now, limit) as DueRow[]);
  }

  /**
   * Take the due deliveries (at most `limit`, oldest first) for sending: in one write transaction they are
   * read and leased until `now + leaseMs`, so nobody else takes them meanwhile. Mark each delivered or
   * failed once its relay answered; one whose sender died is due again when the lease ends.
   */
  claimDue(now: number, leaseMs: number, limit = 200): PendingDelivery[] {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const rows = this.dueRows.all(now, limit) as DueRow[];
      // Every row is leased, also one whose event cannot be read: it must not head every pass.
      for (const row of rows) this.lease.run(now + leaseMs, row.eventId, row.relay);
      this.db.exec('COMMIT');
      return parseRows(rows);
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** The relays that took `eventId`, sorted. */
  deliveredTo(eventId: string): string[] {
    return (this.deliveredRows.all(eventId) as { relay: string }[]).map((row) => row.relay);
  }

  /** How many deliveries wait and how many are done (for the log and tests). */
  count(): { pending: number; delivered: number } {
    return this.counts.get() as { pending: number; delivered: number };
  }
}

type DueRow = {
  eventId: string;
  relay: string;
  attempts: number;
  eventJson: string;
};

function parseRows(rows: readonly DueRow[]): PendingDelivery[] {
  const pending: PendingDelivery[] = [];
  for (const { eventJson, ...row } of rows) {
    try {
      pending.push({ ...row, event: JSON.parse(eventJson) as NostrEvent });
    } catch {
      // An altered event_json cannot be sent; the record check reports it. Leave it out.
    }
  }
  return pending;
}
