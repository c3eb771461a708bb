import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalKeySigner, type Signer } from '@siegel/core';
import { generateSecretKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { type AppDeps, createApp } from '../src/http/app.js';
import { FilesystemStorage } from '../src/storage/filesystem-storage.js';
import type { RecordDatabase } from '../src/storage/record-store.js';
import { SqliteRecordStore } from '../src/storage/sqlite-record-store.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/files/', import.meta.url));
export const BASE_URL = 'http://siegel.test';
export const TOKEN = 'test-sign-token';

/** A fixture's bytes. */
export function readFixture(name: string): Promise<Buffer> {
  return readFile(join(FIXTURES, name));
}

/** An app on a temp data dir and an in-process key (unit tests; the e2e tests use a real bunker). */
export async function makeTestApp(overrides: Partial<AppDeps> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'siegel-server-test-'));
  const records = new SqliteRecordStore(join(dir, 'siegel.sqlite'));
  const storage = new FilesystemStorage(join(dir, 'files'));
  const signer: Signer = new LocalKeySigner(bytesToHex(generateSecretKey()));
  const errors: unknown[] = [];
  // One database object is the records, the hash claims and the upload tokens, as in the server.
  const db = (overrides.records as RecordDatabase | undefined) ?? records;
  const built = createApp({
    signer,
    storage,
    records,
    claims: db,
    uploadTokens: db,
    baseUrl: BASE_URL,
    signTokens: [TOKEN],
    logError: (error) => errors.push(error),
    ...overrides,
  });
  return {
    ...built,
    dir,
    records: (overrides.records as SqliteRecordStore | undefined) ?? records,
    storage,
    signer,
    errors,
    async close() {
      await built.analyzer.close();
      await records.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A multipart body with `data` under `field`. */
export function uploadForm(name: string, data: Uint8Array, field = 'file'): FormData {
  const form = new FormData();
  form.append(field, new Blob([data as Uint8Array<ArrayBuffer>]), name);
  return form;
}

/** `POST /api/sign-image-v2` with the test token. */
export async function signRequest(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  form: FormData,
  token = TOKEN,
) {
  return app.request('/api/sign-image-v2', {
    method: 'POST',
    body: form,
    headers: token === '' ? {} : { Authorization: `Bearer ${token}` },
  });
}
