// `siegel-server migrate` (issue 27, acceptance 3), real processes throughout: a SQLite + filesystem store of
// 1 050 records (every format the server signs, relay outbox rows owed and delivered, one record whose
// stored file was altered) is counted by a dry run that writes nothing, copied to PostgreSQL + S3 by a run
// killed with SIGKILL halfway and run again, then served by the real server on PostgreSQL + S3, where every
// record verifies. Bad arguments and an unreachable database get one clear line and exit codes 2 and 1.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner } from '@siegel/core';
import { generateSecretKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pngChunk } from '../../server/fixtures/png-chunk.mjs';
import { FileSigner, type FileSignerOptions } from '../../server/src/signing/file-signer.js';
import { FilesystemStorage } from '../../server/src/storage/filesystem-storage.js';
import { PostgresRecordStore } from '../../server/src/storage/postgres-record-store.js';
import type { SignedFileRecord } from '../../server/src/storage/record-store.js';
import { SqliteRecordStore } from '../../server/src/storage/sqlite-record-store.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { freePort } from '../support/free-port.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { type RunningS3Server, startS3Server } from '../support/s3-server.js';
import {
  migrate,
  numbers,
  s3Env as s3EnvOf,
  targetKeys as targetKeysOf,
  targetRecords as targetRecordsOf,
  targetStorage as targetStorageOf,
} from './migrate-support.js';
import { type RunningServer, SERVER_FIXTURES, startServer } from './server-process.js';

// Timeouts (docs/testing.md): 1 050 records (signed four at a time: 11–18 s of the file, 34 s one by one) through real servers, a kill -9 and a resume: 36 s alone, 150 s among parallel files
vi.setConfig({ testTimeout: 300_000 });

/** Records per format; seven formats. */
const PER_FORMAT = 150;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const fixture = (name: string) => readFileSync(join(SERVER_FIXTURES, name));

/** A file of each format the server signs, made unique by `label` (a comment, or a line of text). */
const FORMATS: ReadonlyArray<{ extension: string; make: (label: string) => Buffer }> = [
  {
    extension: 'png',
    make: (label) => {
      const png = fixture('png-author.png');
      const iend = png.length - 12;
      const comment = pngChunk('tEXt', Buffer.from(`Comment\0${label}`, 'latin1'));
      return Buffer.concat([png.subarray(0, iend), comment, png.subarray(iend)]);
    },
  },
  {
    extension: 'jpg',
    make: (label) => {
      const jpeg = fixture('jpeg-multi-author.jpg');
      const comment = Buffer.from(`\xff\xfe\0\0${label}`, 'latin1');
      comment.writeUInt16BE(comment.length - 2, 2);
      return Buffer.concat([jpeg.subarray(0, 2), comment, jpeg.subarray(2)]);
    },
  },
  {
    extension: 'webp',
    make: (label) => {
      const webp = fixture('webp-author.webp');
      const data = Buffer.from(label.length % 2 === 0 ? label : `${label} `, 'latin1');
      const head = Buffer.from('TEST\0\0\0\0', 'latin1');
      head.writeUInt32LE(data.length, 4);
      const out = Buffer.concat([webp, head, data]);
      out.writeUInt32LE(out.length - 8, 4);
      return out;
    },
  },
  {
    extension: 'gif',
    make: (label) => {
      const gif = fixture('gif-author.gif');
      const text = Buffer.from(label, 'latin1');
      const comment = Buffer.concat([Buffer.from([0x21, 0xfe, text.length]), text, Buffer.from([0])]);
      return Buffer.concat([gif.subarray(0, -1), comment, gif.subarray(-1)]);
    },
  },
  {
    extension: 'pdf',
    make: (label) => Buffer.concat([fixture('pdf-pdfdoc-author.pdf'), Buffer.from(`% ${label}\n`)]),
  },
  {
    extension: 'md',
    make: (label) => Buffer.from(`---\nauthor: Ann Lee\ntitle: ${label}\n---\n# ${label}\n`),
  },
  {
    extension: 'txt',
    make: (label) => Buffer.from(`---\nauthor: Mary Shelley\n---\nPlain text: ${label}.\n`),
  },
];

/** What was put in the source store, to compare every count and answer with. */
interface Population {
  dataDir: string;
  records: SignedFileRecord[];
  extensionOf: Map<string, string>;
  /** Relays each event was delivered to. */
  delivered: Map<string, string[]>;
  /** The record whose stored file was altered after signing. */
  broken: SignedFileRecord;
  files: number;
  bytes: number;
  outboxRows: number;
  outbox: { pending: number; delivered: number };
}

let cluster: PostgresCluster;
let s3: RunningS3Server;
let bunker: RunningBunker;
let population: Population;
let databaseUrl: string;
const prefix = 'migrated';
const servers: RunningServer[] = [];
const dirs: string[] = [];
// Relays on ports nothing listens on: owed rows stay owed, delivered ones stay as marked.
let relays: string[];

beforeAll(async () => {
  [cluster, s3, bunker] = await Promise.all([startPostgresCluster(), startS3Server(), useBunker()]);
  databaseUrl = await cluster.createDatabase('migrated');
  relays = [`ws://127.0.0.1:${await freePort()}`, `ws://127.0.0.1:${await freePort()}`];
  const started = Date.now();
  population = await populate(relays);
  console.log(
    `populated ${population.records.length} records, ${population.files} files, ${population.bytes} bytes in ${Date.now() - started} ms`,
  );
}, 180_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await Promise.all([cluster?.destroy(), s3?.destroy(), bunker?.stop()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * Sign PER_FORMAT files of every format with the real FileSigner into a SQLite store and its files: a
 * third owe nothing, a third one relay, a third two; half the rows of the first relay, and a quarter of
 * the second's (those also delivered to the first), marked delivered. Then alter one record's stored file.
 */
async function populate([relayA, relayB]: string[]): Promise<Population> {
  const dataDir = await mkdtemp(join(tmpdir(), 'siegel-migrate-source-'));
  dirs.push(dataDir);
  const records = new SqliteRecordStore(join(dataDir, 'siegel.sqlite'));
  const storage = new FilesystemStorage(join(dataDir, 'files'));
  const signer = new LocalKeySigner(bytesToHex(generateSecretKey()));
  const owed = [[], [relayA], [relayA, relayB]] as string[][];
  const signers = owed.map(
    (deliverTo) =>
      new FileSigner({
        signer,
        records,
        claims: records,
        storage,
        baseUrl: 'http://siegel.test',
        cdnUrl: 'http://siegel.test',
        deliverTo,
      }),
  );
  const signed: SignedFileRecord[] = [];
  const extensionOf = new Map<string, string>();
  const delivered = new Map<string, string[]>();
  let outboxRows = 0;
  const total = PER_FORMAT * FORMATS.length;
  let next = 0;
  // A few files at once (the signer's file and record writes overlap; each record is the same as signed
  // one by one), in record order in `signed`.
  const signOne = async (i: number) => {
    const format = FORMATS[i % FORMATS.length] as (typeof FORMATS)[number];
    const deliverTo = owed[i % owed.length] as string[];
    const record = await (signers[i % owed.length] as FileSigner).sign(
      format.make(`record ${i}`),
      `file-${i}.${format.extension}`,
    );
    signed[i] = record;
    extensionOf.set(record.hash, format.extension);
    outboxRows += deliverTo.length;
    const taken = deliverTo.filter((relay) => (relay === relayA ? i % 2 === 0 : i % 4 === 0));
    for (const relay of taken) await records.deliveries.markDelivered(record.eventId, relay, Date.now());
    delivered.set(record.eventId, taken);
  };
  try {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = next++; i < total; i = next++) await signOne(i);
      }),
    );
    const broken = signed.find((record) => extensionOf.get(record.hash) === 'md') as SignedFileRecord;
    await writeFile(join(dataDir, 'files', broken.fileKey), '# altered after signing\n');
    const sizes = await fileSizes(join(dataDir, 'files'));
    return {
      dataDir,
      records: signed,
      extensionOf,
      delivered,
      broken,
      files: sizes.length,
      bytes: sizes.reduce((sum, size) => sum + size, 0),
      outboxRows,
      outbox: await records.deliveries.count(),
    };
  } finally {
    await records.close();
  }
}

/** The size of every file under `dir`. */
async function fileSizes(dir: string): Promise<number[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => (await stat(join(entry.parentPath, entry.name))).size),
  );
}

const s3Env = (folder = prefix) => s3EnvOf(s3, folder);
const targetStorage = (folder = prefix) => targetStorageOf(s3, folder);
const targetKeys = () => targetKeysOf(s3, prefix);
const targetRecords = () => targetRecordsOf(databaseUrl);

const from = () => `sqlite:${population.dataDir}`;

describe('siegel-server migrate: SQLite + filesystem to PostgreSQL + S3', () => {
  it('--dry-run counts records, files, bytes and outbox rows, and writes nothing', async () => {
    const total = population.records.length;
    expect(total).toBeGreaterThanOrEqual(1000);
    const run = await migrate(['--from', from(), '--to', databaseUrl, '--dry-run'], s3Env()).done;
    expect(run.code, run.stderr).toBe(0);
    expect(
      numbers(
        run.stdout,
        /^Dry run: (\d+) records, (\d+) files \((\d+) bytes\), (\d+) outbox rows would be copied/m,
      ),
    ).toEqual([total, population.files, population.bytes, population.outboxRows]);
    expect(population.files).toBe(3 * total);
    expect(run.stdout).toContain(
      `1 do not verify in the source (they would be copied as they are): ${population.broken.hash}`,
    );
    expect(await targetRecords()).toEqual([]);
    expect(await targetKeys()).toEqual([]);
  }, 120_000);

  it('a run killed with SIGKILL halfway is finished by the next; a third finds everything there', async () => {
    const total = population.records.length;
    const args = ['--from', from(), '--to', databaseUrl];
    const started = Date.now();
    const killed = migrate(args, s3Env());
    // Killed once a progress line shows some records, not all, copied.
    let seen: number[] | undefined;
    await new Promise<void>((resolve, reject) => {
      const watch = setInterval(() => {
        const progress = /^(\d+) records read, (\d+) copied/m.exec(killed.stdout());
        if (progress !== null) {
          seen = progress.slice(1).map(Number);
          killed.child.kill('SIGKILL');
          clearInterval(watch);
          resolve();
        }
      }, 5);
      void killed.done.then((outcome) => {
        clearInterval(watch);
        if (seen === undefined)
          reject(new Error(`migrate ended before its first progress line: ${JSON.stringify(outcome)}`));
      });
    });
    const outcome = await killed.done;
    expect(outcome.signal).toBe('SIGKILL');
    expect(seen?.[1]).toBeGreaterThan(0);
    expect(seen?.[0]).toBeLessThan(total);
    const halfway = (await targetRecords()).length;
    expect(halfway).toBeGreaterThan(0);
    expect(halfway).toBeLessThan(total);
    console.log(`killed after ${Date.now() - started} ms with ${halfway} of ${total} records in the target`);

    const resumedAt = Date.now();
    const resumed = await migrate(args, s3Env()).done;
    const resumedMs = Date.now() - resumedAt;
    expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
    const [copied, present, files, bytes] = numbers(
      resumed.stdout,
      /^Copied (\d+) records \((\d+) were there already\), (\d+) files \((\d+) bytes\)/m,
    );
    expect((copied as number) + (present as number)).toBe(total);
    expect(present).toBe(halfway);
    expect(files).toBe(3 * (copied as number));
    expect(bytes).toBeGreaterThan(0);
    expect(numbers(resumed.stdout, /^(\d+) of (\d+) records verify in the target\./m)).toEqual([
      total - 1,
      total,
    ]);
    expect(resumed.stdout).toContain(`1 did not verify in the source either: ${population.broken.hash}`);
    expect(resumed.stderr).toBe('');
    console.log(`resumed run: ${copied} records copied, ${files} files (${bytes} bytes) in ${resumedMs} ms`);

    // Everything is there: every record exactly, three objects each, the outbox as in the source.
    const migrated = await targetRecords();
    const byHash = (a: SignedFileRecord, b: SignedFileRecord) => (a.hash < b.hash ? -1 : 1);
    expect(migrated).toEqual([...population.records].sort(byHash));
    expect((await targetKeys()).length).toBe(3 * total);
    const store = await PostgresRecordStore.open(databaseUrl);
    try {
      expect(await store.deliveries.count()).toEqual(population.outbox);
    } finally {
      await store.close();
    }

    const thirdAt = Date.now();
    const third = await migrate(args, s3Env()).done;
    expect(third.code, `${third.stdout}\n${third.stderr}`).toBe(0);
    expect(numbers(third.stdout, /^Copied (\d+) records \((\d+) were there already\)/m)).toEqual([0, total]);
    expect(numbers(third.stdout, /^(\d+) of (\d+) records verify in the target\./m)).toEqual([
      total - 1,
      total,
    ]);
    console.log(`third run (all there): ${Date.now() - thirdAt} ms`);
  }, 600_000);

  it('the real server on PostgreSQL + S3 verifies every record, serves each format, and shows delivered relays', async () => {
    const server = await startServer({
      bunker,
      env: { DATABASE_URL: databaseUrl, ...s3Env(), SIEGEL_RELAYS: relays.join(','), RELAY_WAIT_MS: '0' },
    });
    servers.push(server);
    const answers = new Map<string, { status: number; verified: unknown; publishedTo: string[] }>();
    const queue = [...population.records];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let record = queue.shift(); record !== undefined; record = queue.shift()) {
          const response = await fetch(`${server.url}/api/verify?hash=${record.hash}`);
          const body = (await response.json()) as { verified?: unknown; published_to?: string[] };
          answers.set(record.hash, {
            status: response.status,
            verified: body.verified,
            publishedTo: [...(body.published_to ?? [])].sort(),
          });
        }
      }),
    );
    for (const record of population.records) {
      const intact = record.hash !== population.broken.hash;
      expect(answers.get(record.hash), record.hash).toEqual({
        status: 200,
        verified: intact,
        publishedTo: intact
          ? [...(population.delivered.get(record.eventId) ?? [])].sort()
          : expect.any(Array),
      });
    }
    // Some delivered relays were carried over, and some rows are still owed.
    expect([...answers.values()].filter((answer) => answer.publishedTo.length === 2).length).toBeGreaterThan(
      0,
    );
    expect(population.outbox.pending).toBeGreaterThan(0);
    // The served bytes of two records of each format hash to the record's hash.
    for (const { extension } of FORMATS) {
      const sample = population.records
        .filter(
          (record) => population.extensionOf.get(record.hash) === extension && record !== population.broken,
        )
        .slice(0, 2);
      for (const record of sample) {
        const served = await fetch(`${server.url}/${record.hash}`);
        expect(served.status, `${extension} ${record.hash}`).toBe(200);
        expect(sha256(new Uint8Array(await served.arrayBuffer()))).toBe(record.hash);
      }
    }
  }, 300_000);

  it("a file the target signed itself before the migration: its record is kept, the source's reported, exit 1", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'siegel-migrate-conflict-'));
    dirs.push(dataDir);
    const conflictUrl = await cluster.createDatabase('conflict');
    const [shared, onlySource] = [FORMATS[5], FORMATS[6]].map((format) => format?.make('conflict') as Buffer);
    const signerOn = (stores: {
      records: FileSignerOptions['records'] & FileSignerOptions['claims'];
      storage: FileSignerOptions['storage'];
    }) =>
      new FileSigner({
        ...stores,
        claims: stores.records,
        signer: new LocalKeySigner(bytesToHex(generateSecretKey())),
        baseUrl: 'http://siegel.test',
        cdnUrl: 'http://siegel.test',
      });
    const source = new SqliteRecordStore(join(dataDir, 'siegel.sqlite'));
    const target = await PostgresRecordStore.open(conflictUrl);
    try {
      const sourceSigner = signerOn({
        records: source,
        storage: new FilesystemStorage(join(dataDir, 'files')),
      });
      const fromSource = await sourceSigner.sign(shared as Buffer, 'shared.md');
      await sourceSigner.sign(onlySource as Buffer, 'only-source.txt');
      const storage = targetStorage('conflict');
      const own = await signerOn({ records: target, storage }).sign(shared as Buffer, 'shared.md');

      const run = await migrate(['--from', `sqlite:${dataDir}`, '--to', conflictUrl], s3Env('conflict')).done;
      expect(run.code, run.stdout).toBe(1);
      expect(numbers(run.stdout, /^Copied (\d+) records \((\d+) were there already\)/m)).toEqual([1, 1]);
      expect(numbers(run.stdout, /^(\d+) of (\d+) records verify in the target\./m)).toEqual([1, 2]);
      expect(run.stderr.trim()).toBe(
        `Does not verify in the target: ${own.hash}: The target holds another record of this file (event ${own.eventId}), not the source's (event ${fromSource.eventId}).`,
      );
      // The target's own record and event page are untouched.
      expect(await target.findByHash(own.hash)).toEqual(own);
      const page = JSON.parse(new TextDecoder().decode(await storage.get(`events/${own.hash}/index.json`)));
      expect(page.event.id).toBe(own.eventId);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  }, 120_000);

  it('bad input: no store, an unreachable database, no --from: one clear line and exit 2, 1, 2', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'siegel-migrate-empty-'));
    dirs.push(empty);
    await mkdir(join(empty, 'files'));
    const noStore = await migrate(['--from', `sqlite:${empty}`, '--to', databaseUrl]).done;
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain(`no store in \`${empty}\``);
    expect(noStore.stdout).toBe('');

    const port = await freePort();
    const password = 'not-to-be-printed-42';
    const down = await migrate([
      '--from',
      from(),
      '--to',
      `postgres://siegel:${password}@127.0.0.1:${port}/siegel`,
    ]).done;
    expect(down.code, down.stdout).toBe(1);
    const lines = down.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`127.0.0.1:${port}`);
    expect(`${down.stdout}${down.stderr}`).not.toContain(password);

    const noFrom = await migrate(['--to', databaseUrl]).done;
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toMatch(/--from must be sqlite:<data dir>/);
    expect(noFrom.stderr).toContain('Usage: siegel-server migrate --from sqlite:<data dir>');
  }, 120_000);
});
