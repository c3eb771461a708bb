import { databasePath, filesPath, type ServerConfig } from '../config/config.js';
import type { FileStorage } from './file-storage.js';
import { FilesystemStorage } from './filesystem-storage.js';
import type { RecordDatabase } from './record-store.js';
import { SqliteRecordStore } from './sqlite-record-store.js';

/** The record store and the file storage a server runs on. */
export interface Stores {
  records: RecordDatabase;
  storage: FileStorage;
  /** What they are, for the start line: `SQLite ./data/siegel.sqlite`, `PostgreSQL db.example:5432/siegel`, … */
  description: { records: string; storage: string };
}

/**
 * Open the stores the settings name: PostgreSQL when `DATABASE_URL` is set, else SQLite in the data
 * directory; S3-compatible object storage when `S3_BUCKET` is set, else the data directory's `files/`.
 * PostgreSQL and S3 are loaded only when used. Fails (one line, naming host and port or endpoint and
 * bucket, never a password) when a store cannot be reached: the server does not start half-connected.
 */
export async function openStores(config: ServerConfig): Promise<Stores> {
  let records: RecordDatabase;
  let recordsDescription: string;
  if (config.databaseUrl !== undefined) {
    const { PostgresRecordStore } = await import('./postgres-record-store.js');
    records = await PostgresRecordStore.open(config.databaseUrl, { timeoutMs: config.databaseTimeoutMs });
    const url = new URL(config.databaseUrl);
    recordsDescription = `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } else {
    const path = databasePath(config.dataDir);
    records = new SqliteRecordStore(path);
    recordsDescription = `SQLite ${path}`;
  }
  let storage: FileStorage;
  let storageDescription: string;
  try {
    if (config.s3 !== undefined) {
      const { S3Storage } = await import('./s3-storage.js');
      const s3 = new S3Storage({
        bucket: config.s3.bucket,
        region: config.s3.region,
        forcePathStyle: config.s3.forcePathStyle,
        versionTtlMs: config.s3.stampMs,
        ...(config.s3.endpoint !== undefined && { endpoint: config.s3.endpoint }),
        ...(config.s3.prefix !== '' && { prefix: config.s3.prefix }),
      });
      await s3.assertReachable();
      storage = s3;
      storageDescription = `S3 ${config.s3.endpoint ?? 'AWS'} bucket ${config.s3.bucket}${config.s3.prefix === '' ? '' : `/${config.s3.prefix}`}`;
    } else {
      const path = filesPath(config.dataDir);
      storage = new FilesystemStorage(path);
      storageDescription = path;
    }
  } catch (error) {
    await records.close();
    throw error;
  }
  return { records, storage, description: { records: recordsDescription, storage: storageDescription } };
}
