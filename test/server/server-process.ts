import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { RunningBunker } from '../support/bunker-process.js';
import { freePort } from '../support/free-port.js';

/** The built server entry point (`npm test` builds it first). */
export const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
export const SERVER_FIXTURES = fileURLToPath(new URL('../../server/fixtures/files/', import.meta.url));

export interface RunningServer {
  url: string;
  /** A token from SIGN_API_TOKENS (or the printed dev token with `dev: true`). */
  token: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, wait for the exit (keeps the data dir). */
  stop(): Promise<number | null>;
}

/**
 * Spawn `node server/dist/main.js` on a random free loopback port against `bunker`, with a data dir
 * (fresh unless given) and a working directory without `.env`; resolves once it listens.
 */
export async function startServer(options: {
  bunker: Pick<RunningBunker, 'url' | 'apiToken' | 'keyName'>;
  dataDir?: string;
  env?: Record<string, string>;
  dev?: boolean;
}): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'siegel-server-e2e-')));
  const cwd = await mkdtemp(join(tmpdir(), 'siegel-server-cwd-'));
  const token = randomBytes(16).toString('hex');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: url,
    SIEGEL_DATA_DIR: dataDir,
    BUNKER_URL: options.bunker.url,
    BUNKER_API_TOKEN: options.bunker.apiToken,
    BUNKER_KEY_NAME: options.bunker.keyName,
    ...(options.dev ? {} : { SIGN_API_TOKENS: `other-token,${token}` }),
    ...options.env,
  });
  const child = spawn(process.execPath, [SERVER_MAIN, ...(options.dev ? ['--dev'] : [])], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${out}`)), 20_000);
    const check = setInterval(() => {
      if (/listening on/.test(out) && (!options.dev || /Dev sign token: \S+/.test(out))) {
        clearTimeout(timer);
        clearInterval(check);
        resolve();
      }
    }, 25);
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    token: options.dev ? (/Dev sign token: (\S+)/.exec(out)?.[1] ?? '') : token,
    dataDir,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      await rm(cwd, { recursive: true, force: true });
      return code;
    },
  };
}

/** POST a file to `/api/sign-image-v2` over HTTP. */
/**
 * `POST /api/inspect` with the server's token: the status and the JSON answer.
 *
 * @example
 * ```ts
 * const { body } = await inspectOverHttp(server, 'photo.png', bytes);
 * ```
 */
export async function inspectOverHttp(
  server: Pick<RunningServer, 'url' | 'token'>,
  name: string,
  bytes: Uint8Array,
) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const response = await fetch(`${server.url}/api/inspect`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${server.token}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

export async function signOverHttp(
  server: Pick<RunningServer, 'url' | 'token'>,
  name: string,
  bytes: Uint8Array,
  token = server.token,
) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  const response = await fetch(`${server.url}/api/sign-image-v2`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${token}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into the JSON answer
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/**
 * Sign a fixture of SERVER_FIXTURES over HTTP (expecting 200) and read its row from the server's database
 * (`db`, opened from outside): what the tampering tests edit and put back.
 */
export async function signFixture(
  server: Pick<RunningServer, 'url' | 'token'>,
  db: DatabaseSync,
  fixture: string,
) {
  const bytes = await readFile(join(SERVER_FIXTURES, fixture));
  const { status, body } = await signOverHttp(server, fixture, bytes);
  expect(status, JSON.stringify(body)).toBe(200);
  const row = db
    .prepare('SELECT rowid, file_key, event_json FROM signed_files WHERE hash = ?')
    .get(body.hash as string) as { rowid: number; file_key: string; event_json: string };
  return {
    hash: body.hash as string,
    rowid: row.rowid,
    fileKey: row.file_key,
    eventJson: row.event_json,
    bytes,
    body,
  };
}
