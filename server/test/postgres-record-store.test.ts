// The record store on PostgreSQL, against a private cluster (test/support/postgres-cluster.ts): what only
// PostgreSQL has — migrations run by two instances at once, a schema newer than the server, and the database
// down at open or going away and coming back. What every store shares (records, duplicates, claims, the
// outbox and upload tokens under concurrent use from two instances, the change stamp) is the store
// conformance suite's (test/server/store-conformance.ts), run on PostgreSQL + S3 too.
import { createHash } from 'node:crypto';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { type PostgresCluster, startPostgresCluster } from '../../test/support/postgres-cluster.js';
import { FEED_APPLICATION_NAME } from '../src/storage/postgres-change-feed.js';
import { POSTGRES_MIGRATIONS } from '../src/storage/postgres-migrations.js';
import { PostgresRecordStore } from '../src/storage/postgres-record-store.js';
import type { SignedFileRecord } from '../src/storage/record-store.js';
import { StoreUnavailableError } from '../src/storage/store-errors.js';

let cluster: PostgresCluster;
let databases = 0;
/** The URL of the database {@link openStores} created last. */
let databaseUrl = '';
const stores: PostgresRecordStore[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.destroy();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A fresh database; `count` stores opened on it at once. */
async function openStores(count: number): Promise<PostgresRecordStore[]> {
  databases += 1;
  databaseUrl = await cluster.createDatabase(`test_${databases}`);
  const opened = await Promise.all(
    Array.from({ length: count }, () => PostgresRecordStore.open(databaseUrl, { timeoutMs: 2000 })),
  );
  stores.push(...opened);
  return opened;
}

/** The server processes of the change feed connections of the database {@link openStores} created last. */
async function feedBackendPids(): Promise<number[]> {
  const rows = await query<{ pid: number }>(
    databaseUrl,
    `SELECT pid FROM pg_stat_activity WHERE application_name = '${FEED_APPLICATION_NAME}' AND datname = current_database()`,
  );
  return rows.map((row) => row.pid);
}

/**
 * Stop (SIGSTOP) every feed connection's server process: on a loaded machine a heartbeat can miss the bound
 * before the test starts, so a replaced connection may still be listed beside the live one; stopping only the
 * first one listed would leave the live feed answering.
 */
async function stopFeedBackends(): Promise<number[]> {
  const pids = await feedBackendPids();
  if (pids.length === 0) throw new Error('no change feed connection');
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  return pids;
}

function resume(pids: number[]): void {
  for (const pid of pids) process.kill(pid, 'SIGCONT');
}

/** Run `text` on `url` through a connection of its own (not a store's). */
async function query<T>(url: string, text: string): Promise<T[]> {
  const sql = postgres(url, { onnotice: () => {} });
  try {
    return [...(await sql.unsafe<T[]>(text))];
  } finally {
    await sql.end();
  }
}

const secretKey = generateSecretKey();

/** A record with a real signed NIP-94 event for file number `n`. */
function signedRecord(n: number): SignedFileRecord {
  const bytes = `# File ${n}\n`;
  const hash = createHash('sha256').update(bytes).digest('hex');
  const event = finalizeEvent(
    {
      kind: 1063,
      created_at: 1_700_000_000 + n,
      tags: [
        ['x', hash],
        ['m', 'text/markdown'],
        ['size', String(bytes.length)],
      ],
      content: `File ${n}`,
    },
    secretKey,
  );
  return {
    hash,
    eventId: event.id,
    pubkey: event.pubkey,
    fileType: 'text',
    mimeType: 'text/markdown',
    sizeBytes: bytes.length,
    width: undefined,
    height: undefined,
    authors: ['Ann Lee', 'Bo "B" Ng'],
    title: `File ${n}`,
    description: undefined,
    fileName: `file-${n}.md`,
    fileKey: `documents/${hash}.md`,
    // As the store gives it back: plain JSON, without nostr-tools' `verified` symbol.
    event: JSON.parse(JSON.stringify(event)),
    createdAt: 1_700_000_000 + n,
  };
}

describe('PostgresRecordStore', () => {
  it('two stores opening a fresh database at once both succeed, and the migrations run once', async () => {
    const [a, b] = await openStores(2);
    const versions = await query<{ version: number }>(
      databaseUrl,
      'SELECT version FROM siegel_schema ORDER BY version',
    );
    expect(versions.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
    await b?.insert(signedRecord(1));
    expect((await a?.findByHash(signedRecord(1).hash))?.eventId).toBe(signedRecord(1).eventId);
  });

  it('refuses a database whose schema is newer than the server', async () => {
    await openStores(1);
    await query(
      databaseUrl,
      `INSERT INTO siegel_schema (version) VALUES (${POSTGRES_MIGRATIONS.length + 1})`,
    );
    await expect(PostgresRecordStore.open(databaseUrl)).rejects.toThrow(
      `PostgreSQL schema version \`${POSTGRES_MIGRATIONS.length + 1}\` is newer than this server`,
    );
  });

  it('refuses to open a stopped database with one line naming host and port', async () => {
    databases += 1;
    const url = await cluster.createDatabase(`test_${databases}`);
    await cluster.stop();
    try {
      const failure = await PostgresRecordStore.open(url).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      const message = (failure as Error).message;
      expect(message).toBe(`Cannot reach PostgreSQL at 127.0.0.1:${cluster.port} (connect ECONNREFUSED)`);
      expect(message).not.toContain(new URL(url).password);
    } finally {
      await cluster.start();
    }
  });

  it('answers StoreUnavailableError while the database is down, and works again once it is back', async () => {
    const [a, b] = await openStores(2);
    await a?.insert(signedRecord(1));
    const stamp = a?.readChangeStamp() ?? '';
    await cluster.stop();
    try {
      await expect(a?.findByHash(signedRecord(1).hash)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(a?.insert(signedRecord(2))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(b?.deliveries.claimDue(0, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(b?.claimHash(signedRecord(3).hash, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(b?.useUploadToken('a'.repeat(64), 0)).rejects.toBeInstanceOf(StoreUnavailableError);
      await eventually(
        () => a?.readChangeStamp() === undefined && b?.readChangeStamp() === undefined,
        10_000,
        20,
      );
    } finally {
      await cluster.start();
    }
    expect((await a?.findByHash(signedRecord(1).hash))?.eventId).toBe(signedRecord(1).eventId);
    await b?.insert(signedRecord(2));
    expect(await a?.listRecords(undefined, 10)).toHaveLength(2);
    await eventually(() => a?.readChangeStamp() !== undefined, 30_000, 50);
    const epoch = (value: string | undefined) => value?.split(':')[0];
    expect(epoch(a?.readChangeStamp())).not.toBe(epoch(stamp));
  }, 60_000);

  it('a feed connection gone silent without closing (a network cut) stops the stamp; its answer starts a new epoch', async () => {
    const [a] = await openStores(1);
    const before = a?.readChangeStamp();
    expect(before).toBeDefined();
    // Its server process stops answering, its socket stays open: what a cut network looks like from here.
    const stopped = await stopFeedBackends();
    try {
      // Asked every millisecond: with the store's 2 s bound the silent connection is replaced as the 3 s
      // silence begins, so the stamp is undefined only until the new connection listens (a few ms, a
      // connect and a LISTEN); asked every 50 ms, that window was missed (CI, twice).
      await eventually(() => a?.readChangeStamp() === undefined, 10_000, 1);
    } finally {
      resume(stopped);
    }
    await eventually(() => a?.readChangeStamp() !== undefined, 10_000, 50);
    const epoch = (value: string | undefined) => value?.split(':')[0];
    expect(epoch(a?.readChangeStamp())).not.toBe(epoch(before));
  });

  it('a feed connection silent past the bound is given up: a new one listens while the old stays silent', async () => {
    const [a] = await openStores(1);
    const stopped = await stopFeedBackends();
    try {
      // Asked every millisecond: with the store's 2 s bound the silent connection is replaced as the 3 s
      // silence begins, so the stamp is undefined only until the new connection listens (a few ms, a
      // connect and a LISTEN); asked every 50 ms, that window was missed (CI, twice).
      await eventually(() => a?.readChangeStamp() === undefined, 10_000, 1);
      // The store's bound here is 2 s: then a new connection listens, and the stamp is back.
      await eventually(() => a?.readChangeStamp() !== undefined, 15_000, 50);
      const now = await feedBackendPids();
      expect(now.filter((pid) => stopped.includes(pid)).length, 'the silent one stays').toBeGreaterThan(0);
      expect(now.filter((pid) => !stopped.includes(pid)).length, 'a new one listens').toBeGreaterThan(0);
      // A statement on signed_files from elsewhere moves the stamp: the new connection hears it.
      const stamp = a?.readChangeStamp();
      await query(databaseUrl, `DELETE FROM signed_files WHERE hash = '${'e'.repeat(64)}'`);
      await eventually(() => a?.readChangeStamp() !== stamp, 5_000, 20);
    } finally {
      resume(stopped);
    }
  });
});
