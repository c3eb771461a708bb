import { randomBytes } from 'node:crypto';
import postgres, { type Options, type Sql } from 'postgres';
import { SERVER_DEFAULTS } from '../config/config.js';
import { PostgresChangeFeed } from './postgres-change-feed.js';
import { PostgresDeliveryStore, type StoreGuard } from './postgres-deliveries.js';
import { isConnectionError, toStoreError } from './postgres-errors.js';
import { migratePostgres } from './postgres-migrations.js';
import {
  DuplicateRecordError,
  type RecordDatabase,
  type RecordOutbox,
  type SignedFileRecord,
} from './record-store.js';
import { ClaimLostError, StoreUnavailableError } from './store-errors.js';
import { type RecordRow, type TokenRow, toRecord, toRow, toToken } from './stored-rows.js';
import type { UploadTokenRecord } from './upload-token-store.js';

/** Options of {@link PostgresRecordStore.open}; every field is optional. */
export interface PostgresStoreOptions {
  /** Most connections in the pool (default 10). */
  max?: number;
  /**
   * How long one call (its queries, and the connection it waits for) and one connection attempt may wait for
   * the database before the call fails with `StoreUnavailableError`, in ms (`DATABASE_TIMEOUT_MS`, default
   * 5000). A call past it abandons the pool's connections: see {@link PostgresRecordStore}.
   */
  timeoutMs?: number;
}

/** Defaults of {@link PostgresStoreOptions}. */
export const POSTGRES_DEFAULTS = {
  max: 10,
  timeoutMs: SERVER_DEFAULTS.databaseTimeoutMs,
} satisfies Required<PostgresStoreOptions>;

/**
 * {@link RecordStore} on PostgreSQL, through the `postgres` driver: several server instances share one
 * database — records, upload tokens, hash claims and the relay outbox ({@link PostgresDeliveryStore}).
 * Every call that cannot reach the database rejects with `StoreUnavailableError`; the driver connects
 * again by itself on the next call once the database is back, so the store is never re-created.
 *
 * Every call is bounded on this side: one that has no answer within `timeoutMs` (a database that is frozen —
 * stopped, swapped out, its host hung — or a network that drops packets keeps a connection open and silent,
 * and cannot enforce its own `statement_timeout`) fails with `StoreUnavailableError`, and the pool it ran on
 * is abandoned: its connections are closed and the calls queued for them fail at once, and the next call
 * opens a new pool. Connecting is bounded by the same time. A write whose answer is lost so may still have
 * committed (its `COMMIT` sent): the caller cannot tell (see `FileSigner`, which leaves its files to the
 * orphan sweep then).
 *
 * @example
 * ```ts
 * const records = await PostgresRecordStore.open(process.env.DATABASE_URL);
 * ```
 */
export class PostgresRecordStore implements RecordDatabase {
  readonly deliveries: PostgresDeliveryStore;
  /** Other instances' writes reach the stamp by `NOTIFY`, a moment after their commit. */
  readonly changeStampLags = true;
  /** The pool calls run on now (replaced when a call past the bound abandons it). */
  private sql: Sql;

  private constructor(
    private readonly url: string,
    private readonly clientOptions: Options<Record<string, never>>,
    sql: Sql,
    private readonly feed: PostgresChangeFeed,
    /** `host:port` for messages: never the URL, which holds the password. */
    private readonly where: string,
    private readonly timeoutMs: number,
  ) {
    this.sql = sql;
    this.deliveries = new PostgresDeliveryStore(this.guard, () => feed.bump());
  }

  /**
   * Run one store call on the current pool: a connection failure becomes `StoreUnavailableError`, and so does
   * a call without an answer within `timeoutMs`, which abandons the pool (see the class).
   */
  private readonly guard: StoreGuard = <T>(work: (sql: Sql) => Promise<T>): Promise<T> => {
    const sql = this.sql;
    const silent = (cause?: unknown) =>
      new StoreUnavailableError(`PostgreSQL at ${this.where} did not answer within ${this.timeoutMs} ms`, 5, {
        cause,
      });
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.abandon(sql);
        reject(silent());
      }, this.timeoutMs);
      work(sql).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // Cut off because another call found the pool silent: the same cause, told the same way.
          reject(
            sql !== this.sql && isConnectionError(error) ? silent(error) : toStoreError(error, this.where),
          );
        },
      );
    });
  };

  /** Close `sql`'s connections (what runs or waits on them fails now) and open a new pool for what comes. */
  private abandon(sql: Sql): void {
    if (sql !== this.sql) return; // abandoned already by another call
    this.sql = postgres(this.url, this.clientOptions);
    sql.end({ timeout: 0 }).catch(() => undefined);
  }

  /**
   * Connect to `url` (`postgres://user:password@host:port/database`), run the pending migrations
   * (`postgres-migrations.ts`) and listen for changes.
   *
   * @throws {StoreUnavailableError} when the database cannot be reached (a one-line message naming host
   *   and port).
   * @throws {Error} when the database's schema is newer than this server's, or the login is refused.
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresRecordStore> {
    const { max, timeoutMs } = { ...POSTGRES_DEFAULTS, ...options };
    const clientOptions: Options<Record<string, never>> = {
      max,
      // In seconds; the driver's timer takes fractions. It runs from the socket's creation to the first
      // ReadyForQuery: TCP, TLS, login.
      connect_timeout: timeoutMs / 1000,
      onnotice: () => {},
    };
    const sql = postgres(url, clientOptions);
    const where = `${sql.options.host[0]}:${sql.options.port[0]}`;
    try {
      await migratePostgres(sql);
      const feed = await PostgresChangeFeed.start(url, clientOptions, timeoutMs);
      return new PostgresRecordStore(url, clientOptions, sql, feed, where, timeoutMs);
    } catch (error) {
      await sql.end({ timeout: 1 });
      throw toStoreError(error, where);
    }
  }

  findByHash(hash: string): Promise<SignedFileRecord | undefined> {
    return this.guard(async (sql) => {
      const [row] = await sql<RecordRow[]>`SELECT * FROM signed_files WHERE hash = ${hash}`;
      return row === undefined ? undefined : toRecord(row);
    });
  }

  findByEventId(eventId: string): Promise<SignedFileRecord | undefined> {
    return this.guard(async (sql) => {
      const [row] = await sql<RecordRow[]>`SELECT * FROM signed_files WHERE event_id = ${eventId}`;
      return row === undefined ? undefined : toRecord(row);
    });
  }

  insert(record: SignedFileRecord, outbox?: RecordOutbox): Promise<void> {
    const row = toRow(record);
    const now = outbox?.now ?? Date.now();
    const relays = [...new Set(outbox?.deliverTo ?? [])];
    return this.guard(async (sql) => {
      try {
        await sql.begin(async (tx) => {
          if (outbox?.claim !== undefined) {
            const released = await tx`
              DELETE FROM hash_claims WHERE hash = ${record.hash} AND token = ${outbox.claim}`;
            if (released.count !== 1) throw new ClaimLostError(record.hash);
          }
          await tx`INSERT INTO signed_files ${tx(row)}`;
          if (relays.length > 0) {
            const deliveries = relays.map((relay) => ({ event_id: record.eventId, relay, next_try_at: now }));
            await tx`INSERT INTO relay_deliveries ${tx(deliveries)} ON CONFLICT DO NOTHING`;
          }
        });
      } catch (error) {
        const { code, table_name: table } = error as { code?: string; table_name?: string };
        if (code === '23505' && table === 'signed_files') throw new DuplicateRecordError(record.hash);
        throw error;
      }
      this.feed.bump();
    });
  }

  findHashes(hashes: readonly string[]): Promise<Set<string>> {
    return this.guard(async (sql) => {
      const rows = await sql<{ hash: string }[]>`
        SELECT hash FROM signed_files WHERE hash = ANY(${sql.array([...hashes])})`;
      return new Set(rows.map((row) => row.hash));
    });
  }

  listRecords(after: string | undefined, limit: number): Promise<SignedFileRecord[]> {
    return this.guard(async (sql) => {
      const rows = await sql<RecordRow[]>`
        SELECT * FROM signed_files WHERE hash > ${after ?? ''} ORDER BY hash LIMIT ${limit}`;
      return rows.map(toRecord);
    });
  }

  claimHash(hash: string, leaseMs: number): Promise<string | undefined> {
    return this.guard(async (sql) => {
      const [row] = await sql<{ token: string }[]>`
        INSERT INTO hash_claims (hash, token, expires_at)
        VALUES (${hash}, ${randomBytes(16).toString('hex')}, now() + ${lease(leaseMs)}::interval)
        ON CONFLICT (hash) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
        WHERE hash_claims.expires_at <= now()
        RETURNING token`;
      return row?.token;
    });
  }

  renewClaim(hash: string, claim: string, leaseMs: number): Promise<boolean> {
    return this.guard(async (sql) => {
      const result = await sql`
        UPDATE hash_claims SET expires_at = now() + ${lease(leaseMs)}::interval
        WHERE hash = ${hash} AND token = ${claim}`;
      return result.count === 1;
    });
  }

  releaseClaim(hash: string, claim: string): Promise<void> {
    return this.guard(async (sql) => {
      await sql`DELETE FROM hash_claims WHERE hash = ${hash} AND token = ${claim}`;
    });
  }

  claimEndsIn(hash: string): Promise<number | undefined> {
    return this.guard(async (sql) => {
      // On the database's clock, as the lease itself.
      const [row] = await sql<{ left: string }[]>`
        SELECT (extract(epoch FROM expires_at - now()) * 1000)::bigint AS left
        FROM hash_claims WHERE hash = ${hash} AND expires_at > now()`;
      return row === undefined ? undefined : Math.max(1, Number(row.left));
    });
  }

  insertUploadToken(token: Omit<UploadTokenRecord, 'used'>): Promise<void> {
    return this.guard(async (sql) => {
      await sql`
        INSERT INTO upload_tokens (hash, origin, uses, used, expires_at, created_at)
        VALUES (${token.hash}, ${token.origin}, ${token.uses}, 0, ${token.expiresAt}, ${token.createdAt})`;
    });
  }

  findUploadToken(hash: string): Promise<UploadTokenRecord | undefined> {
    return this.guard(async (sql) => {
      const [row] = await sql<TokenRow[]>`SELECT * FROM upload_tokens WHERE hash = ${hash}`;
      return row === undefined ? undefined : toToken(row);
    });
  }

  /** One atomic `UPDATE … WHERE used < uses AND expires_at > now RETURNING`: never more than `uses`. */
  useUploadToken(hash: string, now: number): Promise<UploadTokenRecord | undefined> {
    return this.guard(async (sql) => {
      const [row] = await sql<TokenRow[]>`
        UPDATE upload_tokens SET used = used + 1
        WHERE hash = ${hash} AND used < uses AND expires_at > ${now}
        RETURNING *`;
      return row === undefined ? undefined : toToken(row);
    });
  }

  removeExpiredUploadTokens(before: number): Promise<number> {
    return this.guard(async (sql) => {
      const result = await sql`DELETE FROM upload_tokens WHERE expires_at <= ${before}`;
      return result.count;
    });
  }

  /** See {@link RecordStore.readChangeStamp}: `{epoch}:{counter}`, `undefined` while not listening. */
  readChangeStamp(): string | undefined {
    return this.feed.stamp();
  }

  /** End the pool and the change listener (waits at most a second for queries in flight). */
  async close(): Promise<void> {
    await Promise.all([this.feed.close(), this.sql.end({ timeout: 1 })]);
  }
}

/** `leaseMs` as an interval parameter (`now() + …`). */
function lease(leaseMs: number): string {
  return `${Math.max(0, Math.round(leaseMs))} milliseconds`;
}
