#!/usr/bin/env node
// `npm run demo`: the whole story on one machine, with nothing to configure.
//
//  1. builds the workspace if any part it runs is not built yet (`npm run build`),
//  2. starts a throwaway development bunker (`siegel-bunker start --dev`: fresh key, fresh tokens),
//  3. builds the Astro example with @siegel/astro, signing every page through that bunker,
//  4. serves the signed site on localhost and prints a page's URL and its verify page's URL,
//  5. starts the file-signing server (`server/`) against the same bunker, for /tools/sign.
//
// Ctrl-C (SIGINT) or SIGTERM stops every process it started.
//
// On a fresh clone it first installs the dependencies (`npm ci`, scripts/install.mjs), and when the Node that
// started it is older than the repository needs (Debian's Node 20, before node_modules held Node 24) it runs
// itself again on the Node 24 the install put in node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDependencies } from './install.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/astro-site');
const OUT_DIR = join(EXAMPLE, 'dist');
const BUNKER_CLI = join(ROOT, 'packages/bunker/dist/cli.js');
const SERVER_MAIN = join(ROOT, 'server/dist/main.js');
const ASTRO_BIN = join(ROOT, 'node_modules/astro/bin/astro.mjs');
const SAMPLE_PAGE = 'blog/first-post/index.html';

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
let siteServer;
let stopping = false;

const say = (message) => console.log(`[demo] ${message}`);

/** The repository's own Node (the `node` devDependency), what every npm script here runs on. */
const PINNED_NODE = join(ROOT, 'node_modules', '.bin', 'node');
/** The oldest Node the packages run on (their `engines`). */
const NEEDED_NODE = [22, 12];

if (!existsSync(join(ROOT, 'node_modules', '.package-lock.json'))) {
  try {
    await installDependencies(ROOT, say);
  } catch (error) {
    console.error(`[demo] ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (
  (major < NEEDED_NODE[0] || (major === NEEDED_NODE[0] && minor < NEEDED_NODE[1])) &&
  existsSync(PINNED_NODE)
) {
  say(
    `Node ${process.version} started this; going on with the repository's own Node (node_modules/.bin/node)`,
  );
  const again = spawn(PINNED_NODE, [fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  // Ctrl-C reaches it through the process group; a SIGTERM sent to this process alone is passed on.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => again.kill('SIGTERM'));
  again.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  main().catch(async (error) => {
    console.error(`[demo] ${error instanceof Error ? error.message : error}`);
    await stopAll(1);
  });
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
}

async function main() {
  ensureBuilt();

  const bunkerPort = await freePort();
  say('starting a development bunker (throwaway key and tokens)…');
  const bunker = await startBunker(bunkerPort);
  say(`bunker: ${bunker.url} (key \`${bunker.keyName}\`, ${bunker.pubkey})`);

  const { server, port } = await listenSite();
  siteServer = server;
  const site = `http://127.0.0.1:${port}`;
  const bunkerEnv = {
    BUNKER_URL: bunker.url,
    BUNKER_API_TOKEN: bunker.apiToken,
    BUNKER_KEY_NAME: bunker.keyName,
  };

  // The bunker's key is new on every run, so a cache from an earlier run names another key: the build would
  // warn about it and re-sign every page anyway. Start without it (it only ever held throwaway signatures:
  // a demo run rewrites it).
  await Promise.all(
    ['.sign-cache.json', '.sign-cache.json.journal'].map((name) => rm(join(EXAMPLE, name), { force: true })),
  );
  say('building and signing examples/astro-site…');
  await run(process.execPath, [ASTRO_BIN, 'build', '--site', site], {
    cwd: EXAMPLE,
    env: { ...process.env, ...bunkerEnv, ASTRO_TELEMETRY_DISABLED: '1' },
  });

  const sample = await readFile(join(OUT_DIR, SAMPLE_PAGE), 'utf8');
  const verifyUrl = /<link rel="nostr-verification" href="([^"]+)">/.exec(sample)?.[1];
  if (!verifyUrl) throw new Error(`${SAMPLE_PAGE} has no signature block: signing did not happen`);

  // ensureBuilt() made sure server/dist/main.js exists: the demo always offers /tools/sign.
  const serverPort = await freePort();
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const dataDir = join(ROOT, 'data', 'demo');
  const { output } = await startChild('server', process.execPath, [SERVER_MAIN, '--dev'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...bunkerEnv,
      HOST: '127.0.0.1',
      PORT: String(serverPort),
      BASE_URL: serverUrl,
      SIEGEL_DATA_DIR: dataDir,
    },
    // With --dev the server generates a sign token and prints it once it listens.
    ready: /Dev sign token: \S+\s/,
    quiet: true,
  });
  const signToken = /Dev sign token: (\S+)/.exec(output())?.[1];

  console.log('');
  console.log(`Site:        ${site}/`);
  console.log(`Page:        ${site}/blog/first-post/`);
  console.log(`Verify page: ${verifyUrl}`);
  console.log(`Bunker:      ${bunker.url}/admin  (admin token: ${bunker.adminToken})`);
  console.log(`Sign files:  ${serverUrl}/tools/sign${signToken ? `  (token: ${signToken})` : ''}`);
  console.log('');
  say('press Ctrl-C to stop everything');
}

/** Run `npm run build` when the parts the demo runs are not built. */
function ensureBuilt() {
  const needed = [
    BUNKER_CLI,
    SERVER_MAIN,
    join(ROOT, 'packages/core/dist/index.js'),
    join(ROOT, 'packages/core/dist/siegel-verify.js'),
    join(ROOT, 'packages/astro/dist/index.js'),
  ];
  const missing = () => needed.filter((file) => !existsSync(file));
  if (missing().length === 0) return;
  say('building the workspace (npm run build)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.status !== 0) throw new Error('`npm run build` failed');
  const still = missing();
  if (still.length > 0)
    throw new Error(`\`npm run build\` did not produce ${still.map((file) => `\`${file}\``).join(', ')}`);
}

/** Start the dev bunker and read its machine-readable `SIEGEL_BUNKER_READY {json}` line. */
async function startBunker(port) {
  const { output } = await startChild(
    'bunker',
    process.execPath,
    [BUNKER_CLI, 'start', '--dev', '--port', String(port)],
    {
      cwd: ROOT,
      env: withoutBunkerEnv(process.env),
      ready: /^SIEGEL_BUNKER_READY .*$/m,
      quiet: true,
    },
  );
  const line = /^SIEGEL_BUNKER_READY (.*)$/m.exec(output())?.[1];
  const ready = JSON.parse(line ?? '{}');
  if (!ready.url || !ready.apiToken) throw new Error(`unexpected bunker output:\n${output()}`);
  return ready;
}

function withoutBunkerEnv(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('BUNKER_')));
}

/** Spawn a long-running child, resolve once its output matches `ready`. */
function startChild(name, command, args, { cwd, env, ready, quiet = false }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let text = '';
    let started = false;
    const onData = (chunk) => {
      text += chunk;
      if (!quiet || started) process.stdout.write(prefixLines(name, String(chunk)));
      if (!started && ready.test(text)) {
        started = true;
        resolve({ child, output: () => text });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (!started) reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${text}`));
      else if (!stopping) {
        console.error(`[demo] ${name} stopped unexpectedly (${code ?? signal})`);
        void stopAll(1);
      }
    });
  });
}

/** Run a command to completion with inherited output. */
function run(command, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    children.add(child);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`\`${args.slice(0, 2).join(' ')}\` failed (${code ?? signal})`));
    });
  });
}

function prefixLines(name, text) {
  return text.replace(/^(?=.)/gm, `[${name}] `);
}

/** Listen first (the site URL goes into the signatures), serve the build output once it exists. */
async function listenSite() {
  const types = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.xml': 'application/xml',
  };
  const server = createServer(async (request, response) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      // A malformed escape (`/%E0%A4%A`): the client's mistake, never the demo's end.
      return void response.writeHead(400, { 'content-type': 'text/plain' }).end('bad request: malformed URL');
    }
    let file = normalize(join(OUT_DIR, pathname));
    if (file !== OUT_DIR && !file.startsWith(OUT_DIR + sep)) return void response.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      response
        .writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
        .end(body);
    } catch {
      // Browsers ask for /favicon.ico on every page without an icon link (the verify pages): a 404 there
      // is an error in the console. The site's own icon is an SVG.
      if (pathname === '/favicon.ico') {
        const icon = await readFile(join(OUT_DIR, 'favicon.svg')).catch(() => undefined);
        if (icon) return void response.writeHead(200, { 'content-type': types['.svg'] }).end(icon);
        return void response.writeHead(204).end();
      }
      const notFound = await readFile(join(OUT_DIR, '404.html')).catch(() => Buffer.from('not found'));
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(notFound);
    }
  });
  const preferred = Number(process.env.DEMO_PORT ?? 4321);
  const port = await new Promise((resolve, reject) => {
    server.once('error', (error) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      server.listen(0, '127.0.0.1', () => resolve(server.address().port));
    });
    server.listen(preferred, '127.0.0.1', () => resolve(server.address().port));
  });
  return { server, port };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Stop every child (SIGTERM, SIGKILL after 5 s), close the site server, exit. */
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  const exits = [...children].map(
    (child) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  );
  await Promise.all(exits);
  if (siteServer) {
    siteServer.closeAllConnections?.();
    await new Promise((resolve) => siteServer.close(() => resolve()));
  }
  process.exit(code);
}
