// What the `siegel-server migrate` tests share (migrate.test.ts, migrate-hostile.test.ts): the command run as
// a real process, the S3 settings and store of a target folder, the target's records, and the numbers of a
// report line.
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { PostgresRecordStore } from '../../server/src/storage/postgres-record-store.js';
import type { SignedFileRecord } from '../../server/src/storage/record-store.js';
import { S3Storage } from '../../server/src/storage/s3-storage.js';
import type { RunningS3Server } from '../support/s3-server.js';
import { SERVER_MAIN } from './server-process.js';

/** A running `siegel-server migrate`: its process, its stdout so far, and how it ended. */
export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `node server/dist/main.js migrate …args` in an empty working directory (no `.env`), with `env` only. */
export function migrate(args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, [SERVER_MAIN, 'migrate', ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, stdout: () => stdout, done };
}

/** The `S3_*` settings (and credentials) that put the target's files under `folder` of `s3`'s bucket. */
export function s3Env(s3: RunningS3Server, folder: string): Record<string, string> {
  return {
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: folder,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
}

/** The target's file store under `folder` of `s3`'s bucket, as {@link s3Env} configures it. */
export function targetStorage(s3: RunningS3Server, folder: string): S3Storage {
  return new S3Storage({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: s3.region,
    forcePathStyle: true,
    prefix: folder,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
}

/** Every key under `folder` of `s3`'s bucket. */
export async function targetKeys(s3: RunningS3Server, folder: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of targetStorage(s3, folder).list('')) keys.push(key);
  return keys;
}

/** Every record in the PostgreSQL database at `databaseUrl`, by hash order. */
export async function targetRecords(databaseUrl: string): Promise<SignedFileRecord[]> {
  const store = await PostgresRecordStore.open(databaseUrl);
  try {
    const all: SignedFileRecord[] = [];
    for (;;) {
      const page = await store.listRecords(all.at(-1)?.hash, 500);
      if (page.length === 0) return all;
      all.push(...page);
    }
  } finally {
    await store.close();
  }
}

/** The numbers of the report line `pattern` matches (throws, with the output, when none does). */
export function numbers(output: string, pattern: RegExp): number[] {
  const match = pattern.exec(output);
  if (match === null) throw new Error(`no line matches ${pattern} in:\n${output}`);
  return match.slice(1).map(Number);
}
