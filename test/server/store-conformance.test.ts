// The store conformance suite (store-conformance.ts) on every store pair the server can run on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FilesystemStorage } from '../../server/src/storage/filesystem-storage.js';
import { PostgresRecordStore } from '../../server/src/storage/postgres-record-store.js';
import { S3Storage } from '../../server/src/storage/s3-storage.js';
import { SqliteRecordStore } from '../../server/src/storage/sqlite-record-store.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { type RunningS3Server, startS3Server } from '../support/s3-server.js';
import { describeStorePair } from './store-conformance.js';

const dirs: string[] = [];
let cluster: PostgresCluster | undefined;
let s3: RunningS3Server | undefined;
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await Promise.all([cluster?.destroy(), s3?.destroy()]);
});

describeStorePair('SQLite + filesystem', async () => {
  let dir = '';
  const fresh = async () => {
    dir = await mkdtemp(join(tmpdir(), 'siegel-conformance-'));
    dirs.push(dir);
  };
  await fresh();
  return {
    open: async () => ({
      records: new SqliteRecordStore(join(dir, 'siegel.sqlite')),
      // Stamps at once (the filesystem's racy-time guard would make every fresh file unstamped).
      storage: new FilesystemStorage(join(dir, 'files'), { racyVersionMs: 0 }),
    }),
    env: () => ({ SIEGEL_DATA_DIR: dir }),
    reset: fresh,
  };
});

describeStorePair('PostgreSQL + S3', async () => {
  [cluster, s3] = await Promise.all([startPostgresCluster(), startS3Server()]);
  const pg = cluster;
  const server = s3;
  let round = 0;
  let databaseUrl = '';
  let prefix = '';
  // Each test: a fresh database and a fresh folder of the bucket.
  const fresh = async () => {
    round += 1;
    databaseUrl = await pg.createDatabase(`conformance_${round}`);
    prefix = `conformance-${round}`;
  };
  await fresh();
  const s3Env = () => ({
    S3_BUCKET: server.bucket,
    S3_ENDPOINT: server.endpoint,
    S3_REGION: server.region,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: prefix,
    AWS_ACCESS_KEY_ID: server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
  });
  return {
    open: async () => ({
      records: await PostgresRecordStore.open(databaseUrl),
      storage: new S3Storage({
        endpoint: server.endpoint,
        bucket: server.bucket,
        region: server.region,
        forcePathStyle: true,
        prefix,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      }),
    }),
    env: () => ({ DATABASE_URL: databaseUrl, ...s3Env() }),
    reset: fresh,
  };
});
