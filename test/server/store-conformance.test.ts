// The store conformance suite (store-conformance.ts) on every store pair the server can run on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FilesystemStorage } from '../../server/src/storage/filesystem-storage.js';
import { SqliteRecordStore } from '../../server/src/storage/sqlite-record-store.js';
import { describeStorePair } from './store-conformance.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
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
