// The real processes the server benches run against — a bunker with a key, the built file server, a relay
// (test/support/relay/relay-server.mjs) — and how they read one process's memory. Shared by the benches in
// this directory.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNKER_CLI = join(ROOT, 'packages/bunker/dist/cli.js');
const SERVER_MAIN = join(ROOT, 'server/dist/main.js');
const RELAY_SERVER = join(ROOT, 'test/support/relay/relay-server.mjs');

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Sign `bytes` as `name` through the server on `port` (`POST /api/sign-image-v2`); throws unless 200. */
export async function signFile(port, token, name, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const response = await fetch(`http://127.0.0.1:${port}/api/sign-image-v2`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`signing failed: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Start `node ARGS` with `env` added; resolves once its output matches `ready`. */
export function spawnUntil(args, env, ready) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) resolve({ child, match, output: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => {
      out += chunk;
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`)));
  });
}

/** SIGTERM, and wait for the exit. */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Peak and current resident set of a process, in bytes (Linux /proc). */
export async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { peak: kib('VmHWM'), current: kib('VmRSS') };
}

/**
 * The verify probe of the tests (test/server/verify-probe.mjs) asking `url` one request after another, in a
 * thread of its own; `started` resolves at its first answer, `stop()` with its latencies' summary.
 */
export function startProbe(url) {
  const worker = new Worker(join(ROOT, 'test/server/verify-probe.mjs'), { workerData: { url } });
  const started = new Promise((resolve) => worker.once('message', () => resolve()));
  return {
    started,
    stop: () =>
      new Promise((resolve, reject) => {
        worker.on('message', (message) => {
          if (message.first !== true) resolve(message);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

/**
 * The processes and temporary directories of one bench run: `close()` stops them all (last started first)
 * and removes the directories.
 */
export function createBenchRun() {
  const dirs = [];
  const children = [];
  const tempDir = async (prefix) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  return {
    /** A bunker with a generated key `default`; resolves to its URL, API token and process. */
    async startBunker() {
      const apiToken = randomBytes(24).toString('base64url');
      const adminToken = randomBytes(24).toString('base64url');
      const bunker = await spawnUntil(
        [BUNKER_CLI, 'start', '--port', '0', '--data-dir', await tempDir('siegel-bench-server-bunker-')],
        { BUNKER_API_TOKEN: apiToken, BUNKER_ADMIN_TOKEN: adminToken, BUNKER_PASSPHRASE: '' },
        /^SIEGEL_BUNKER_READY (\{.*\})$/m,
      );
      children.push(bunker.child);
      const url = JSON.parse(bunker.match[1]).url;
      const created = await fetch(`${url}/api/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'default', generate: true, passphrase: 'bench passphrase' }),
      });
      if (created.status !== 201) throw new Error(`creating the key failed: ${created.status}`);
      return { url, apiToken, child: bunker.child };
    },
    /** The built file server on a fresh data directory, signing through `bunker`, with `env` on top. */
    async startServer(bunker, token, env = {}) {
      const port = await freePort();
      const { child, output } = await spawnUntil(
        [SERVER_MAIN],
        {
          HOST: '127.0.0.1',
          PORT: String(port),
          BASE_URL: `http://127.0.0.1:${port}`,
          SIEGEL_DATA_DIR: await tempDir('siegel-bench-server-data-'),
          SIGN_API_TOKENS: token,
          SIGN_RATE_LIMIT: '100000',
          BUNKER_URL: bunker.url,
          BUNKER_API_TOKEN: bunker.apiToken,
          BUNKER_KEY_NAME: 'default',
          ...env,
        },
        /listening on/,
      );
      children.push(child);
      return { port, child, output };
    },
    /** A relay process (`--silent`: reads everything, answers nothing); resolves to its URL. */
    async startRelay(args = []) {
      const relay = await spawnUntil(
        [RELAY_SERVER, '--port', '0', ...args],
        {},
        /^SIEGEL_RELAY_READY (\{.*\})$/m,
      );
      children.push(relay.child);
      return { url: JSON.parse(relay.match[1]).url, child: relay.child };
    },
    /** Stop one of its processes now (the others keep running). */
    stop,
    /** Track another child process, to be stopped by `close()`. */
    adopt(child) {
      children.push(child);
    },
    async close() {
      for (const child of children.reverse()) await stop(child);
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}
