import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { fetchKeptAlive } from './kept-alive-fetch.mjs';

/** The built CLI (`npm test` builds it first). */
export const BUNKER_CLI = fileURLToPath(new URL('../../packages/bunker/dist/cli.js', import.meta.url));

/** The line `siegel-bunker start` prints on stdout once listening. */
const READY = /^SIEGEL_BUNKER_READY (\{.*\})$/m;

export interface RunningBunker {
  url: string;
  apiToken: string;
  adminToken: string;
  dataDir: string;
  /** The key created at start (`default`, or the first of `opts.keys`). */
  keyName: string;
  /** Hex pubkey of that key. */
  pubkey: string;
  /** Passphrase that key is encrypted with. */
  passphrase: string;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, waits for exit (and removes the data directory when it made it). */
  stop(): Promise<void>;
}

/**
 * The settings a Siegel integration reads to reach `bunker`: its URL (or `url`, e.g. a counting proxy in
 * front of it), API token and key name.
 */
export function bunkerEnv(bunker: RunningBunker, url: string = bunker.url): Record<string, string> {
  return { BUNKER_URL: url, BUNKER_API_TOKEN: bunker.apiToken, BUNKER_KEY_NAME: bunker.keyName };
}

/**
 * Spawns `node packages/bunker/dist/cli.js start` (built output; `process.execPath`) on a random free
 * loopback port with a fresh temp data dir (or `opts.dataDir`), with a generated, unlocked key `default`
 * unless `opts.keys` says otherwise (`locked: true` → created but left locked). Keys that already exist in
 * `opts.dataDir` are kept (and unlocked with the passphrase unless `locked: true`).
 */
export async function startBunker(
  opts: {
    dataDir?: string;
    keys?: Array<{ name: string; locked?: boolean }>;
    env?: Record<string, string>;
    /** More `start` arguments, e.g. `['--relay', url]`. */
    args?: string[];
  } = {},
): Promise<RunningBunker> {
  const apiToken = opts.env?.BUNKER_API_TOKEN || newSecret();
  const adminToken = opts.env?.BUNKER_ADMIN_TOKEN || newSecret();
  const passphrase = opts.env?.BUNKER_PASSPHRASE || newSecret();
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'siegel-bunker-')));
  const bunker = await spawnBunker({
    args: ['--port', '0', '--data-dir', dataDir, ...(opts.args ?? [])],
    env: { ...opts.env, BUNKER_API_TOKEN: apiToken, BUNKER_ADMIN_TOKEN: adminToken },
  });
  const stop = async () => {
    await bunker.stop();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const keys = opts.keys ?? [{ name: 'default' }];
    let pubkey = '';
    for (const [i, key] of keys.entries()) {
      const admin = { token: adminToken };
      const created = await callBunker(bunker.url, 'POST', '/api/keys', {
        ...admin,
        body: { name: key.name, generate: true, passphrase },
      });
      if (created.status === 409) {
        if (!key.locked)
          await callBunker(bunker.url, 'POST', `/api/keys/${key.name}/unlock`, {
            ...admin,
            body: { passphrase },
          });
      } else if (created.status !== 201) {
        throw new Error(`creating key \`${key.name}\` failed: ${created.status} ${await created.text()}`);
      }
      if (key.locked) await callBunker(bunker.url, 'POST', `/api/keys/${key.name}/lock`, admin);
      if (i === 0) {
        const list = (await (await callBunker(bunker.url, 'GET', '/api/keys', admin)).json()) as {
          name: string;
          pubkey: string;
        }[];
        pubkey = list.find((k) => k.name === key.name)?.pubkey ?? '';
      }
    }
    return {
      url: bunker.url,
      apiToken,
      adminToken,
      dataDir,
      keyName: keys[0]?.name ?? '',
      pubkey,
      passphrase,
      output: bunker.output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What the global setup shares of the run's one bunker (test/setup/global.ts). */
export interface SharedBunker {
  url: string;
  apiToken: string;
  adminToken: string;
  dataDir: string;
}

/**
 * A bunker for a test that only signs through it: a key of its own (generated, unlocked) on the run's one
 * shared bunker in the `real` and `slow` projects, or a bunker of its own elsewhere (`startBunker()`).
 * `stop()` deletes the key. The shared bunker has no key `default`, so a test that forgets to pass its key
 * name (`bunkerEnv`) fails instead of signing with another file's key. Tests of the bunker's own life
 * (restart, throttles, shutdown, data directory, hostile input, its output) use {@link startBunker}.
 */
export async function useBunker(): Promise<RunningBunker> {
  let shared: SharedBunker | undefined;
  try {
    shared = inject('sharedBunker');
  } catch {
    // not in a vitest worker
  }
  if (!shared) return startBunker();
  const { url, apiToken, adminToken, dataDir } = shared;
  const keyName = `t-${randomBytes(9).toString('base64url')}`;
  const passphrase = newSecret();
  const created = await callBunker(url, 'POST', '/api/keys', {
    token: adminToken,
    body: { name: keyName, generate: true, passphrase },
  });
  if (created.status !== 201)
    throw new Error(
      `creating key \`${keyName}\` on the shared bunker failed: ${created.status} ${await created.text()}`,
    );
  const { pubkey } = (await created.json()) as { pubkey: string };
  return {
    url,
    apiToken,
    adminToken,
    dataDir,
    keyName,
    pubkey,
    passphrase,
    output: () => {
      throw new Error(
        "the shared bunker's output is not one test's: use startBunker() to read a bunker's output",
      );
    },
    async stop() {
      await callBunker(url, 'DELETE', `/api/keys/${keyName}`, { token: adminToken });
    },
  };
}

/** A spawned `siegel-bunker start`, at a lower level than {@link startBunker}. */
export interface BunkerProcess {
  url: string;
  /** The parsed `SIEGEL_BUNKER_READY` line. */
  ready: Record<string, unknown>;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The environment without the caller's `BUNKER_*` settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('BUNKER_')) delete env[name];
  return env;
}

/** Spawn `siegel-bunker start ARGS` (add `--port 0` for a free port) and wait for its ready line. */
export async function spawnBunker(options: {
  args: string[];
  env?: Record<string, string>;
}): Promise<BunkerProcess> {
  const child = spawn(process.execPath, [BUNKER_CLI, 'start', ...options.args], {
    env: { ...cleanEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`siegel-bunker did not start within 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = READY.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(JSON.parse(match[1]) as Record<string, unknown>);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`siegel-bunker exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url: String(ready.url),
    ready,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Run the CLI to completion (`keys add`, `keys list`, refusals). */
export function runBunkerCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNKER_CLI, ...args], {
      env: { ...cleanEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`siegel-bunker ${args.join(' ')} did not finish within 30 s`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `fetch` a bunker route with a bearer token (`null`: none) and a JSON body (a string is sent as is); sent
 * once more when the bunker closed the idle connection under it (`fetchKeptAlive`).
 */
export function callBunker(
  url: string,
  method: string,
  path: string,
  options: { token: string | null; body?: unknown },
): Promise<Response> {
  return fetchKeptAlive(`${url}${path}`, {
    method,
    headers: {
      ...(options.token !== null && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(options.body !== undefined && {
      body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    }),
  });
}

function newSecret(): string {
  return randomBytes(24).toString('base64url');
}
