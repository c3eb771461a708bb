// The record store on PostgreSQL, against a private cluster (test/support/postgres-cluster.ts): what only
// several instances on one database show — migrations at once, duplicates, claims, the outbox and upload
// tokens under concurrent use, the change stamp fed by other instances, and the database going away and
// coming back. The behaviour every store shares is the store conformance suite's.
import { createHash } from 'node:crypto';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { type PostgresCluster, startPostgresCluster } from '../../test/support/postgres-cluster.js';
import { POSTGRES_MIGRATIONS } from '../src/storage/postgres-migrations.js';
import { PostgresRecordStore } from '../src/storage/postgres-record-store.js';
import { DuplicateRecordError, type SignedFileRecord } from '../src/storage/record-store.js';
import { ClaimLostError, StoreUnavailableError } from '../src/storage/store-errors.js';

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
    Array.from({ length: count }, () => PostgresRecordStore.open(databaseUrl, { connectTimeoutSeconds: 2 })),
  );
  stores.push(...opened);
  return opened;
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

  it('reads a record back exactly, also through another instance, in hash order', async () => {
    const [a, b] = await openStores(2);
    const records = [signedRecord(1), signedRecord(2), { ...signedRecord(3), width: 640, height: 480 }];
    for (const record of records) await a?.insert(record);
    expect(await b?.findByHash(records[0]?.hash ?? '')).toEqual(records[0]);
    expect(await b?.findByEventId(records[2]?.eventId ?? '')).toEqual(records[2]);
    expect(await b?.findByHash('0'.repeat(64))).toBeUndefined();
    const sorted = [...records].sort((x, y) => x.hash.localeCompare(y.hash));
    const first = (await b?.listRecords(undefined, 2)) ?? [];
    expect(first).toEqual(sorted.slice(0, 2));
    expect(await b?.listRecords(first[1]?.hash, 2)).toEqual(sorted.slice(2));
  });

  it('refuses a second record for the same hash or the same event, from another instance', async () => {
    const [a, b] = await openStores(2);
    const record = signedRecord(1);
    await a?.insert(record, { deliverTo: ['wss://a.example'] });
    await expect(b?.insert({ ...signedRecord(2), hash: record.hash })).rejects.toBeInstanceOf(
      DuplicateRecordError,
    );
    await expect(b?.insert({ ...record, hash: signedRecord(2).hash })).rejects.toBeInstanceOf(
      DuplicateRecordError,
    );
    // Nothing of the refused writes stayed: one record, one outbox row.
    expect(await b?.listRecords(undefined, 10)).toHaveLength(1);
    expect(await b?.deliveries.count()).toEqual({ pending: 1, delivered: 0 });
  });

  it('gives a hash to exactly one of 20 concurrent claims from two instances', async () => {
    const [a, b] = await openStores(2);
    const hash = signedRecord(1).hash;
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ((i % 2 === 0 ? a : b) as PostgresRecordStore).claimHash(hash, 60_000),
      ),
    );
    const tokens = claims.filter((claim) => claim !== undefined);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatch(/^[0-9a-f]{32}$/);
  });

  it('fails a write whose claim expired and was taken, and writes nothing', async () => {
    const [a, b] = await openStores(2);
    const record = signedRecord(1);
    const mine = (await a?.claimHash(record.hash, 1)) ?? '';
    await eventually(async () => (await b?.claimHash(record.hash, 60_000)) !== undefined, 4_000, 20);
    expect(await a?.renewClaim(record.hash, mine, 60_000)).toBe(false);
    await expect(a?.insert(record, { claim: mine, deliverTo: ['wss://a.example'] })).rejects.toBeInstanceOf(
      ClaimLostError,
    );
    expect(await b?.findByHash(record.hash)).toBeUndefined();
    expect(await b?.deliveries.count()).toEqual({ pending: 0, delivered: 0 });
  });

  it('a held claim is released with the record', async () => {
    const [a, b] = await openStores(2);
    const record = signedRecord(1);
    const claim = (await a?.claimHash(record.hash, 60_000)) ?? '';
    expect(await b?.claimHash(record.hash, 60_000)).toBeUndefined();
    expect(await a?.renewClaim(record.hash, claim, 60_000)).toBe(true);
    await a?.insert(record, { claim });
    expect(await b?.claimHash(record.hash, 60_000)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('never hands one delivery to two claimers, however many claim at once from two instances', async () => {
    const [a, b] = await openStores(2);
    const relays = Array.from({ length: 20 }, (_, i) => `wss://relay-${i}.example`);
    for (let n = 0; n < 10; n += 1) await a?.insert(signedRecord(n), { deliverTo: relays, now: 1_000 + n });
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ((i % 2 === 0 ? a : b) as PostgresRecordStore).deliveries.claimDue(5_000, 60_000, 15),
      ),
    );
    const keys = claims.flat().map((delivery) => `${delivery.eventId} ${delivery.relay}`);
    expect(new Set(keys).size).toBe(keys.length);
    // 20 claims of 15 take at most 200; the lease holds the rest back until it ends.
    const rest = await b?.deliveries.claimDue(5_000, 60_000, 500);
    expect(keys.length + (rest?.length ?? 0)).toBe(200);
    expect(await a?.deliveries.claimDue(5_000, 60_000)).toEqual([]);
    expect((await a?.deliveries.claimDue(65_000, 60_000, 500))?.length).toBe(200);
  });

  it('takes exactly 5 uses of a 5-use token from 20 parallel uses on two instances', async () => {
    const [a, b] = await openStores(2);
    const hash = 'a'.repeat(64);
    await a?.insertUploadToken({
      hash,
      origin: 'https://app.example',
      uses: 5,
      expiresAt: 2_000_000,
      createdAt: 1,
    });
    const uses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ((i % 2 === 0 ? a : b) as PostgresRecordStore).useUploadToken(hash, 1_000),
      ),
    );
    expect(
      uses
        .filter((use) => use !== undefined)
        .map((use) => use?.used)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    expect((await b?.findUploadToken(hash))?.used).toBe(5);
  });

  it('changes its stamp at once after its own write, and after another instance writes', async () => {
    const [a, b] = await openStores(2);
    const before = a?.readChangeStamp();
    const bBefore = b?.readChangeStamp();
    expect(before).toMatch(/^\d+:\d+$/);
    await a?.insert(signedRecord(1), { deliverTo: ['wss://a.example'] });
    const afterOwn = a?.readChangeStamp();
    expect(afterOwn).not.toBe(before);
    await eventually(() => b?.readChangeStamp() !== bBefore, 4_000, 20);
    // A transaction notifies once: b has seen all of the insert; what changes b's stamp now is the delivery
    // (it changes `published_to`).
    const seenByB = b?.readChangeStamp();
    await a?.deliveries.markDelivered(signedRecord(1).eventId, 'wss://a.example', 2_000);
    expect(a?.readChangeStamp()).not.toBe(afterOwn);
    await eventually(() => b?.readChangeStamp() !== seenByB, 4_000, 20);
    // And the other way round: a record written through b changes a's stamp.
    const seenByA = a?.readChangeStamp();
    const ownBefore = b?.readChangeStamp();
    await b?.insert(signedRecord(2));
    expect(b?.readChangeStamp()).not.toBe(ownBefore);
    await eventually(() => a?.readChangeStamp() !== seenByA, 4_000, 20);
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
});
