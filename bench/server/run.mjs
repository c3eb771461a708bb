// Bench (not a test) for the file-signing service (issue 5, acceptance 6; issue 10, acceptance 5), against
// real processes:
//  1. GET /api/verify?hash= requests/s on the real server vs a bare Hono JSON route, same load generator,
//     same run (goal ≥ 0.7×);
//  2. peak RSS of the server process signing a 10 MB file (goal ≤ 3× the file + the idle server);
//  3. peak RSS of the server process while 60 uploads of 24 MiB arrive at once (goal < 500 MB), all of them
//     signed in the end: an upload answered 503 SERVER_BUSY is sent again after its Retry-After, as a
//     client of the API should.
//
//   npm run build && node bench/server/run.mjs
//   BENCH_SECONDS=10 BENCH_CONCURRENCY=32 BENCH_PARALLEL=60 node bench/server/run.mjs
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { pngChunk } from '../../server/fixtures/png-chunk.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 10);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 60);
const PARALLEL_MIB = 24;
const root = fileURLToPath(new URL('../../', import.meta.url));
const BUNKER_CLI = join(root, 'packages/bunker/dist/cli.js');
const SERVER_MAIN = join(root, 'server/dist/main.js');
const BARE = join(root, 'bench/server/bare-server.mjs');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function spawnUntil(args, env, ready) {
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

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Peak and current resident set of a process, in bytes (Linux /proc). */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { peak: kib('VmHWM'), current: kib('VmRSS') };
}

/**
 * Keep-alive GET load on several targets, interleaved in short slices (so a change in the machine's load
 * hits every target alike) for SECONDS each at CONCURRENCY; returns requests/s per target. Every answer's
 * status is checked.
 */
async function load(targets) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (port, path, expectStatus) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === expectStatus ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const run = async ({ port, path, status }, ms) => {
    let count = 0;
    const until = Date.now() + ms;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until) {
          await get(port, path, status);
          count++;
        }
      }),
    );
    return { count, ms: performance.now() - start };
  };
  for (const target of targets) await run(target, 1000); // warm-up
  const totals = targets.map(() => ({ count: 0, ms: 0 }));
  const SLICE = 500;
  for (let slice = 0; slice < (SECONDS * 1000) / SLICE; slice++) {
    for (const [i, target] of targets.entries()) {
      const { count, ms } = await run(target, SLICE);
      totals[i].count += count;
      totals[i].ms += ms;
    }
  }
  agent.destroy();
  return totals.map(({ count, ms }) => (count / ms) * 1000);
}

/** A valid PNG of about `megabytes` MB (incompressible noise) whose XMP names an author. */
function makePng(megabytes) {
  const chunk = pngChunk;
  const width = 1024;
  const height = Math.ceil((megabytes * 1024 * 1024) / (width * 3 + 1));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = randomBytes(height * (width * 3 + 1));
  for (let row = 0; row < height; row++) raw[row * (width * 3 + 1)] = 0; // filter type none
  const xmp = Buffer.from(
    'XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Bench Author</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>',
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('iTXt', xmp),
    chunk('IDAT', deflateSync(raw, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * `count` different PNGs of `mebibytes` MiB, as lists of parts: each has its own header and author chunks
 * and one `tEXt` chunk naming its number, and all share one IDAT chunk of noise (made once), so the bench
 * itself holds one copy of the image data, not `count`.
 */
function makeParallelPngs(count, mebibytes) {
  const width = 1024;
  const rowBytes = width * 3 + 1;
  const height = Math.floor((mebibytes * 1024 * 1024 - 64 * 1024) / rowBytes);
  const raw = randomBytes(height * rowBytes);
  for (let row = 0; row < height; row++) raw[row * rowBytes] = 0;
  const idat = pngChunk('IDAT', deflateSync(raw, { level: 0 }));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const xmp = Buffer.from(
    'XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Bench Author</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>',
  );
  const head = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('iTXt', xmp),
  ]);
  const end = pngChunk('IEND', Buffer.alloc(0));
  return Array.from({ length: count }, (_, i) => [
    Buffer.concat([head, pngChunk('tEXt', Buffer.from(`Comment\0parallel upload ${i}`))]),
    idat,
    end,
  ]);
}

/**
 * POST one multipart upload made of `parts` (written one after another, never joined) with its
 * `Content-Length`, as a browser or curl sends a file; resolves to the status.
 */
function uploadParts(port, token, name, parts) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const pieces = [head, ...parts, tail];
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/sign-image-v2',
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(length),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode, body, retryAfter: res.headers['retry-after'] }),
        );
      },
    );
    req.on('error', reject);
    (async () => {
      for (const piece of pieces) {
        if (!req.write(piece)) await new Promise((done) => req.once('drain', done));
      }
      req.end();
    })().catch(reject);
  });
}

async function sign(port, token, name, bytes) {
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

const dirs = [];
const children = [];
try {
  const apiToken = randomBytes(24).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const bunkerDir = await mkdtemp(join(tmpdir(), 'siegel-bench-server-bunker-'));
  dirs.push(bunkerDir);
  const bunker = await spawnUntil(
    [BUNKER_CLI, 'start', '--port', '0', '--data-dir', bunkerDir],
    { BUNKER_API_TOKEN: apiToken, BUNKER_ADMIN_TOKEN: adminToken, BUNKER_PASSPHRASE: '' },
    /^SIEGEL_BUNKER_READY (\{.*\})$/m,
  );
  children.push(bunker.child);
  const bunkerUrl = JSON.parse(bunker.match[1]).url;
  const created = await fetch(`${bunkerUrl}/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'default', generate: true, passphrase: 'bench passphrase' }),
  });
  if (created.status !== 201) throw new Error(`creating the key failed: ${created.status}`);

  const token = randomBytes(16).toString('hex');
  const startServer = async (env = {}) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'siegel-bench-server-data-'));
    dirs.push(dataDir);
    const port = await freePort();
    const { child } = await spawnUntil(
      [SERVER_MAIN],
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        SIEGEL_DATA_DIR: dataDir,
        SIGN_API_TOKENS: token,
        SIGN_RATE_LIMIT: '100000',
        BUNKER_URL: bunkerUrl,
        BUNKER_API_TOKEN: apiToken,
        BUNKER_KEY_NAME: 'default',
        ...env,
      },
      /listening on/,
    );
    children.push(child);
    return { port, child };
  };

  // --- 2. peak RSS signing a 10 MB file. Before each upload the server idles, its resident set is read, and
  // its peak counter is reset (`echo 5 > /proc/PID/clear_refs`), so each round measures that upload alone.
  // Three different files in a row on a freshly started server: the first pays for first-use allocations.
  const measure = async ({ port, child }, round) => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = await memoryOf(child.pid);
    await writeFile(`/proc/${child.pid}/clear_refs`, '5');
    const file = makePng(FILE_MB);
    const signed = await sign(port, token, `bench-${round}.png`, file);
    const after = await memoryOf(child.pid);
    if (signed.hash !== createHash('sha256').update(file).digest('hex')) throw new Error('wrong hash');
    return { idle: idle.current, peak: after.peak, size: file.length, signed };
  };
  const server = await startServer();
  const serverPort = server.port;
  await fetch(`http://127.0.0.1:${serverPort}/api/verify?hash=${'0'.repeat(64)}`);
  const rounds = [];
  for (let round = 1; round <= 3; round++) rounds.push(await measure(server, round));
  const { signed } = rounds[0];

  // --- 1. verify requests/s vs a bare Hono JSON route ---
  const barePort = await freePort();
  const verifyBody = await (
    await fetch(`http://127.0.0.1:${serverPort}/api/verify?hash=${signed.hash}`)
  ).text();
  const bare = await spawnUntil([BARE], { PORT: String(barePort), BENCH_BODY: verifyBody }, /listening on/);
  children.push(bare.child);
  const [bareRate, verifyRate, sameBodyRate] = await load([
    { port: barePort, path: '/json', status: 200 },
    { port: serverPort, path: `/api/verify?hash=${signed.hash}`, status: 200 },
    { port: barePort, path: '/same-body', status: 200 },
  ]);
  const ratio = verifyRate / bareRate;
  await stop(bare.child);

  // --- 3. peak RSS while PARALLEL uploads of 24 MiB arrive at once (issue 10: 1.6 GB before admission
  // control). A fresh server with the default admission settings: 8 uploads in flight, 128 MiB of bodies
  // held, 32 waiting up to 10 s; the others are answered 503 and sent again after Retry-After.
  const parallelServer = await startServer();
  await fetch(`http://127.0.0.1:${parallelServer.port}/api/verify?hash=${'0'.repeat(64)}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const parallelIdle = await memoryOf(parallelServer.child.pid);
  await writeFile(`/proc/${parallelServer.child.pid}/clear_refs`, '5');
  const pngs = makeParallelPngs(PARALLEL, PARALLEL_MIB);
  const parallelSize = pngs[0].reduce((sum, part) => sum + part.length, 0);
  const parallelStarted = performance.now();
  const parallelStatuses = {};
  await Promise.all(
    pngs.map(async (parts, i) => {
      while (true) {
        const { status, retryAfter } = await uploadParts(
          parallelServer.port,
          token,
          `parallel-${i}.png`,
          parts,
        );
        parallelStatuses[status] = (parallelStatuses[status] ?? 0) + 1;
        if (status !== 503) return;
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(retryAfter ?? 1)));
      }
    }),
  );
  const parallelSeconds = (performance.now() - parallelStarted) / 1000;
  const parallelPeak = (await memoryOf(parallelServer.child.pid)).peak;

  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `siegel server bench: Node ${process.versions.node}, ${SECONDS} s per route in interleaved 0.5 s slices, ${CONCURRENCY} connections`,
  );
  console.log(`  bare Hono JSON route      : ${Math.round(bareRate).toString().padStart(7)} req/s`);
  console.log(`  GET /api/verify?hash=     : ${Math.round(verifyRate).toString().padStart(7)} req/s`);
  console.log(`  ratio: ${ratio.toFixed(2)}× (goal ≥ 0.7×) ${ratio >= 0.7 ? 'met' : 'NOT met'}`);
  console.log(
    `  (for scale: the bare route answering the verify API's ${verifyBody.length}-byte body: ${Math.round(sameBodyRate)} req/s; verify = ${(verifyRate / sameBodyRate).toFixed(2)}× of that)`,
  );
  for (const [i, round] of rounds.entries()) {
    const growth = round.peak - round.idle;
    const limit = 3 * round.size + round.idle;
    console.log(
      `  signing ${mb(round.size)} PNG #${i + 1}: idle RSS ${mb(round.idle)}, peak ${mb(round.peak)}, growth ${mb(growth)} = ${(growth / round.size).toFixed(2)}× the file; goal peak ≤ 3× file + idle = ${mb(limit)}: ${round.peak <= limit ? 'met' : 'NOT met'}`,
    );
  }
  console.log(
    `  ${PARALLEL} parallel uploads of ${mb(parallelSize)}: ${parallelStatuses[200] ?? 0} signed in ${parallelSeconds.toFixed(1)} s (answers ${JSON.stringify(parallelStatuses)}, 503s sent again after Retry-After); idle RSS ${mb(parallelIdle.current)}, peak ${mb(parallelPeak)}; goal peak < 500 MB: ${parallelPeak < 500 * 1024 * 1024 ? 'met' : 'NOT met'}`,
  );
} finally {
  for (const child of children.reverse()) await stop(child);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}
