import type { Sql } from 'postgres';
import type { DeliveryStore, PendingDelivery } from './delivery-store.js';
import { type DueRow, parseDueRows } from './stored-rows.js';

/**
 * Runs one store operation on the store's current pool (given to `work`), turning connection failures, and
 * no answer within the store's bound, into `StoreUnavailableError`.
 */
export type StoreGuard = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

interface ClaimedRow extends DueRow {
  due_at: string;
}

/**
 * {@link DeliveryStore} on the PostgreSQL record store's database (table `relay_deliveries`). A claim is
 * one statement: the due rows are locked `FOR UPDATE SKIP LOCKED` (rows another claimer holds are passed
 * over, not waited for) and leased until `now + leaseMs`, so two instances never take the same delivery.
 */
export class PostgresDeliveryStore implements DeliveryStore {
  /**
   * `guard` wraps every call (connection failures → `StoreUnavailableError`); `onDelivered` runs after a
   * delivery was marked, which changes verify answers (`published_to`).
   */
  constructor(
    private readonly guard: StoreGuard,
    private readonly onDelivered: () => void = () => {},
  ) {}

  claimDue(now: number, leaseMs: number, limit = 200): Promise<PendingDelivery[]> {
    return this.guard(async (sql) => {
      const rows = await sql<ClaimedRow[]>`
        WITH due AS (
          SELECT d.event_id, d.relay, d.next_try_at
          FROM relay_deliveries d JOIN signed_files f ON f.event_id = d.event_id
          WHERE d.delivered_at IS NULL AND d.next_try_at <= ${now}
          ORDER BY d.next_try_at
          LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
        )
        UPDATE relay_deliveries d SET next_try_at = ${now + leaseMs}
        FROM due, signed_files f
        WHERE d.event_id = due.event_id AND d.relay = due.relay AND f.event_id = d.event_id
        RETURNING d.event_id, d.relay, d.attempts, due.next_try_at AS due_at, f.event_json`;
      // Every row is leased, also one whose event cannot be read: it must not head every pass.
      const sorted = [...rows].sort((a, b) => Number(a.due_at) - Number(b.due_at));
      return parseDueRows(sorted);
    });
  }

  markDelivered(eventId: string, relay: string, now: number): Promise<void> {
    return this.guard(async (sql) => {
      await sql`
        UPDATE relay_deliveries SET delivered_at = ${now}, last_error = NULL
        WHERE event_id = ${eventId} AND relay = ${relay}`;
      this.onDelivered();
    });
  }

  markFailed(eventId: string, relay: string, reason: string, nextTryAt: number): Promise<void> {
    return this.guard(async (sql) => {
      await sql`
        UPDATE relay_deliveries
        SET attempts = attempts + 1, next_try_at = ${nextTryAt}, last_error = ${reason.slice(0, 500)}
        WHERE event_id = ${eventId} AND relay = ${relay} AND delivered_at IS NULL`;
    });
  }

  deliveredTo(eventId: string): Promise<string[]> {
    return this.guard(async (sql) => {
      const rows = await sql<{ relay: string }[]>`
        SELECT relay FROM relay_deliveries
        WHERE event_id = ${eventId} AND delivered_at IS NOT NULL ORDER BY relay`;
      return rows.map((row) => row.relay);
    });
  }

  count(): Promise<{ pending: number; delivered: number }> {
    return this.guard(async (sql) => {
      const [row] = await sql<{ pending: string; delivered: string }[]>`
        SELECT count(*) FILTER (WHERE delivered_at IS NULL) AS pending,
               count(*) FILTER (WHERE delivered_at IS NOT NULL) AS delivered
        FROM relay_deliveries`;
      return { pending: Number(row?.pending ?? 0), delivered: Number(row?.delivered ?? 0) };
    });
  }
}
