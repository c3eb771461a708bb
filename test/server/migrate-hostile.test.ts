// `siegel-server migrate` from a hostile or damaged source (issue 34), real processes throughout: a SQLite +
// filesystem store of a few records, some of whose stored files are links out of the store (a file, a
// directory), a FIFO, or a record whose `file_key` leaves the store, is copied to PostgreSQL + S3: those
// records are reported one line each and not copied, the others are, and the run exits 1. A source database
// that is no database, truncated, empty, or of a newer schema gets one line and exit 1, never a stack.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rename, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { LocalKeySigner } from '@siegel/core';
import { generateSecretKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileSigner } from '../../server/src/signing/file-signer.js';
import { FilesystemStorage } from '../../server/src/storage/filesystem-storage.js';
import type { SignedFileRecord } from '../../server/src/storage/record-store.js';
import { SqliteRecordStore } from '../../server/src/storage/sqlite-record-store.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { type RunningS3Server, startS3Server } from '../support/s3-server.js';
import { migrate, numbers, s3Env, targetKeys, targetRecords, targetStorage } from './migrate-support.js';

// Timeouts (docs/testing.md): a PostgreSQL cluster and an S3 server start in ~5 s; each migrate run of a few
// records takes ~1 s. Before the fix the FIFO hung the run: the timeout is what ends it then.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const SECRET = 'SECRET: outside the source store';

let cluster: PostgresCluster;
let s3: RunningS3Server;
const dirs: string[] = [];

beforeAll(async () => {
  [cluster, s3] = await Promise.all([startPostgresCluster(), startS3Server()]);
});
afterAll(async () => {
  await Promise.all([cluster?.destroy(), s3?.destroy()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `siegel-migrate-${name}-`));
  dirs.push(dir);
  return dir;
}

/** Sign one Markdown file per name into a SQLite store and its files in `dataDir`. */
async function signInto(dataDir: string, names: readonly string[]): Promise<Map<string, SignedFileRecord>> {
  const records = new SqliteRecordStore(join(dataDir, 'siegel.sqlite'));
  const signer = new FileSigner({
    signer: new LocalKeySigner(bytesToHex(generateSecretKey())),
    records,
    claims: records,
    storage: new FilesystemStorage(join(dataDir, 'files')),
    baseUrl: 'http://siegel.test',
    cdnUrl: 'http://siegel.test',
  });
  try {
    const signed = new Map<string, SignedFileRecord>();
    for (const name of names) {
      const text = `---\nauthor: Ann Lee\ntitle: ${name}\n---\n# ${name} ${Math.random()}\n`;
      signed.set(name, await signer.sign(Buffer.from(text), `${name}.md`));
    }
    return signed;
  } finally {
    await records.close();
  }
}

describe('siegel-server migrate from a hostile source', () => {
  it('links, a FIFO and a file_key out of the store: each reported and not copied, the rest copied, exit 1', async () => {
    const dataDir = await tempDir('hostile');
    const outside = await tempDir('outside');
    const files = join(dataDir, 'files');
    const signed = await signInto(dataDir, [
      'intact-1',
      'intact-2',
      'missing',
      'linked-file',
      'linked-dir',
      'fifo',
      'bad-key',
    ]);
    const record = (name: string) => signed.get(name) as SignedFileRecord;
    const secretPath = join(outside, 'secret.txt');
    await writeFile(secretPath, SECRET);
    // The document replaced by a link to a file outside the store.
    await rm(join(files, record('linked-file').fileKey));
    await symlink(secretPath, join(files, record('linked-file').fileKey));
    // The event pages' directory moved out of the store and linked back: the bytes are intact, the path is not.
    const pages = join(files, 'events', record('linked-dir').hash);
    await rename(pages, join(outside, 'pages'));
    await symlink(join(outside, 'pages'), pages);
    // A FIFO in place of the document: reading it would wait for a writer for ever.
    await rm(join(files, record('fifo').fileKey));
    execFileSync('mkfifo', [join(files, record('fifo').fileKey)]);
    // A record whose file key leaves the store.
    const db = new DatabaseSync(join(dataDir, 'siegel.sqlite'));
    db.prepare('UPDATE signed_files SET file_key = ? WHERE hash = ?').run(
      '../../../../../../etc/passwd',
      record('bad-key').hash,
    );
    db.close();
    // A missing document is no hazard: the record is copied as it is and fails its check in both stores.
    await rm(join(files, record('missing').fileKey));

    const refused = ['linked-file', 'linked-dir', 'fifo', 'bad-key'];
    const expectRefusals = (stderr: string, verb: string) => {
      for (const name of refused) {
        const lines = stderr.split('\n').filter((line) => line.includes(record(name).hash));
        expect(lines, `${name}\n${stderr}`).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`^${verb}: ${record(name).hash}: `));
      }
      expect(stderr).toMatch(/`documents\/[0-9a-f]{64}\.md` is a symbolic link/);
      expect(stderr).toMatch(/`events\/[0-9a-f]{64}` is a symbolic link/);
      expect(stderr).toMatch(/`documents\/[0-9a-f]{64}\.md` is no regular file \(a FIFO\)/);
      expect(stderr).toContain('`../../../../../../etc/passwd` is no storage key');
      expect(stderr).toContain(`${refused.length} records`);
      expect(stderr).not.toMatch(/\n\s+at /);
    };

    const databaseUrl = await cluster.createDatabase('hostile');
    const args = ['--from', `sqlite:${dataDir}`, '--to', databaseUrl];
    const dry = await migrate([...args, '--dry-run'], s3Env(s3, 'hostile')).done;
    expect(dry.code, `${dry.stdout}\n${dry.stderr}`).toBe(1);
    expectRefusals(dry.stderr, 'Would not copy');
    expect(dry.stdout).toMatch(/^Dry run: 3 records, 8 files \(\d+ bytes\), 0 outbox rows would be copied/m);
    expect(await targetKeys(s3, 'hostile')).toEqual([]);

    const run = await migrate(args, s3Env(s3, 'hostile')).done;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expectRefusals(run.stderr, 'Not copied');
    expect(run.stderr).toContain(`${refused.length} records were not copied`);
    expect(numbers(run.stdout, /^Copied (\d+) records \((\d+) were there already\), (\d+) files/m)).toEqual([
      3, 0, 8,
    ]);
    expect(numbers(run.stdout, /^(\d+) of (\d+) records verify in the target\./m)).toEqual([2, 7]);
    expect(run.stdout).toContain(`1 did not verify in the source either: ${record('missing').hash}`);

    // The target holds the three copied records and their files, nothing of the others, nothing from outside.
    const copied = ['intact-1', 'intact-2', 'missing'].map((name) => record(name).hash).sort();
    expect((await targetRecords(databaseUrl)).map((found) => found.hash)).toEqual(copied);
    const keys = await targetKeys(s3, 'hostile');
    expect(keys).toHaveLength(8);
    for (const name of refused) expect(keys.join('\n')).not.toContain(record(name).hash);
    const storage = targetStorage(s3, 'hostile');
    for (const key of keys) {
      const text = new TextDecoder().decode(await storage.get(key));
      expect(text, key).not.toContain(SECRET);
      expect(text, key).not.toContain('root:');
    }

    // Without S3 the target keeps using the source's files: nothing is copied, and the same records are left
    // out (a server on the target would otherwise serve what the links point at).
    const sameFilesUrl = await cluster.createDatabase('hostile_same_files');
    const sameFiles = await migrate(['--from', `sqlite:${dataDir}`, '--to', sameFilesUrl]).done;
    expect(sameFiles.code, `${sameFiles.stdout}\n${sameFiles.stderr}`).toBe(1);
    expectRefusals(sameFiles.stderr, 'Not copied');
    expect((await targetRecords(sameFilesUrl)).map((found) => found.hash)).toEqual(copied);
  });

  it('a source database that is no database, truncated, empty or newer: one line, exit 1, no stack', async () => {
    const dataDir = await tempDir('damaged-source');
    await signInto(dataDir, ['one', 'two', 'three']);
    const good = join(dataDir, 'siegel.sqlite');
    const databaseUrl = await cluster.createDatabase('damaged');
    const cases: Array<[string, (path: string) => Promise<void>, RegExp]> = [
      [
        'not a database',
        (path) => writeFile(path, 'not SQLite at all\n'.repeat(400)),
        /: file is not a database$/,
      ],
      [
        'truncated',
        async (path) => {
          await copyFile(good, path);
          await truncate(path, Math.floor((await stat(good)).size / 2));
        },
        /: database disk image is malformed$/,
      ],
      [
        'empty',
        (path) => writeFile(path, ''),
        /: it holds no siegel-server store \(no `signed_files` table\)$/,
      ],
      [
        'newer schema',
        async (path) => {
          await copyFile(good, path);
          const db = new DatabaseSync(path);
          db.exec('PRAGMA user_version = 99');
          db.close();
        },
        /: it was written by a newer siegel-server \(schema 99; this one reads up to \d+\)$/,
      ],
    ];
    for (const [name, make, reason] of cases) {
      const dir = join(dataDir, name.replace(/ /g, '-'));
      await mkdir(dir);
      const path = join(dir, 'siegel.sqlite');
      await make(path);
      const run = await migrate(['--from', `sqlite:${dir}`, '--to', databaseUrl]).done;
      expect(run.code, `${name}\n${run.stdout}\n${run.stderr}`).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines, `${name}\n${run.stderr}`).toHaveLength(1);
      expect(lines[0]).toContain(`Cannot read the source database at ${path}`);
      expect(lines[0]).toMatch(reason);
    }
    // The good store beside them still migrates.
    const run = await migrate(['--from', `sqlite:${dataDir}`, '--to', databaseUrl]).done;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(numbers(run.stdout, /^(\d+) of (\d+) records verify in the target\./m)).toEqual([3, 3]);
  });
});
