import type { Sql } from 'postgres';

/** The channel the change triggers notify on (see `PostgresChangeFeed`). */
export const CHANGES_CHANNEL = 'siegel_changes';

/**
 * The key of the transaction-level advisory lock the migrations run under (`pg_advisory_xact_lock`), so
 * that instances starting at once on a fresh database migrate it one after the other. Any constant works
 * as long as nothing else in the database uses it; this is "Siegel" in ASCII.
 */
export const MIGRATION_LOCK = 0x53_69_65_67_65_6c;

/**
 * Schema migrations of the PostgreSQL record store, applied in order, each one statement; the table
 * `siegel_schema` holds one row per applied version. Append, never edit. The tables mirror the SQLite
 * store's (`sqlite-record-store.ts`); the event and the authors stay text so that a record reads back
 * exactly as written (jsonb would reorder keys and drop duplicates).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE signed_files (
     hash text PRIMARY KEY CHECK (length(hash) = 64),
     event_id text NOT NULL UNIQUE,
     pubkey text NOT NULL,
     file_type text NOT NULL,
     mime_type text NOT NULL,
     size_bytes bigint NOT NULL,
     width integer,
     height integer,
     authors text NOT NULL,
     title text,
     description text,
     file_name text NOT NULL,
     file_key text NOT NULL,
     event_json text NOT NULL,
     created_at bigint NOT NULL
   )`,
  'CREATE INDEX signed_files_pubkey ON signed_files (pubkey, created_at)',
  // The relay outbox (postgres-deliveries.ts): one row per signed event and relay; times in Unix ms.
  `CREATE TABLE relay_deliveries (
     event_id text NOT NULL,
     relay text NOT NULL,
     delivered_at bigint,
     attempts integer NOT NULL DEFAULT 0,
     next_try_at bigint NOT NULL,
     last_error text,
     PRIMARY KEY (event_id, relay)
   )`,
  'CREATE INDEX relay_deliveries_due ON relay_deliveries (next_try_at) WHERE delivered_at IS NULL',
  // Upload tokens for browsers: only their SHA-256 is kept; times in Unix ms.
  `CREATE TABLE upload_tokens (
     hash text PRIMARY KEY CHECK (length(hash) = 64),
     origin text NOT NULL,
     uses integer NOT NULL CHECK (uses > 0),
     used integer NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= uses),
     expires_at bigint NOT NULL,
     created_at bigint NOT NULL
   )`,
  'CREATE INDEX upload_tokens_expiry ON upload_tokens (expires_at)',
  // Hash claims (record-store.ts HashClaims), on the database's clock.
  `CREATE TABLE hash_claims (
     hash text PRIMARY KEY,
     token text NOT NULL,
     expires_at timestamptz NOT NULL
   )`,
  // The change feed behind readChangeStamp: every statement that may change a verify answer (the record,
  // or the relays that took its event) notifies every listening instance. One payload for all, so that
  // PostgreSQL folds a transaction's notifications into one.
  `CREATE FUNCTION siegel_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${CHANGES_CHANNEL}', '');
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER signed_files_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON signed_files
   FOR EACH STATEMENT EXECUTE FUNCTION siegel_notify_change()`,
  // Only `delivered_at` feeds an answer (`published_to`): the publisher's leases and retries do not notify.
  `CREATE TRIGGER relay_deliveries_changed
   AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF delivered_at ON relay_deliveries
   FOR EACH STATEMENT EXECUTE FUNCTION siegel_notify_change()`,
];

/**
 * Bring the database to {@link POSTGRES_MIGRATIONS}: in one transaction under {@link MIGRATION_LOCK}, so
 * concurrent instances wait for each other and the migrations run once.
 *
 * @throws {Error} when the database was migrated by a newer server (its version is past ours).
 */
export async function migratePostgres(sql: Sql, migrations = POSTGRES_MIGRATIONS): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS siegel_schema (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
    const [row] = await tx<{ version: number }[]>`
      SELECT coalesce(max(version), 0)::integer AS version FROM siegel_schema`;
    const version = row?.version ?? 0;
    if (version > migrations.length) {
      throw new Error(
        `PostgreSQL schema version \`${version}\` is newer than this server (${migrations.length}): ` +
          'run the newer server, or point DATABASE_URL at another database',
      );
    }
    for (const [index, migration] of migrations.entries()) {
      if (index < version) continue;
      await tx.unsafe(migration);
      await tx`INSERT INTO siegel_schema (version) VALUES (${index + 1})`;
    }
  });
}
