// Issue 26, acceptance 1: the built @siegel/client runs unchanged outside the repository's Node 24 — on the
// system's Node 20 (/usr/bin/node), on Deno (the `deno` npm package) and in workerd (Cloudflare's Workers
// runtime, through Miniflare) — against the real server: embedAuthor (PNG, PDF through DecompressionStream,
// Markdown), sign, sign again (already signed), inspect, verify, and the typed AUTHOR_REQUIRED error.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXTS, writeImages, writePdfs } from '../../packages/client/test/support/inputs.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';

const run = promisify(execFile);
const SYSTEM_NODE = '/usr/bin/node';
const DENO = fileURLToPath(new URL('../../node_modules/.bin/deno', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./client-script.mjs', import.meta.url));
/** The round trip the scripts share (Deno reads it as it reads the package). */
const ROUND_TRIP = fileURLToPath(new URL('./round-trip.mjs', import.meta.url));
const WORKER = fileURLToPath(new URL('./worker-client.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(REPO, 'packages/client/');
/** The client's one dependency, which Deno reaches through node_modules as an npm project's Deno does. */
const FORMATS = [join(REPO, 'node_modules/@siegel/formats/'), join(REPO, 'packages/formats/')];

let bunker: RunningBunker;
let server: RunningServer;
let dir: string;
/** The inputs, written by sharp, pdf-lib and by hand; one large enough to stream in many pieces. */
let files: Record<string, Uint8Array>;

/** What each runtime reports for one file (client-script.mjs, worker-client.mjs). */
interface FileReport {
  name: string;
  alreadySigned: boolean[];
  authors: string[];
  title: string;
  inspected: { hash: boolean; already_signed: boolean };
  verified: boolean;
  progressSteps: number;
  progressTotal: number;
  progressLast: number;
}

beforeAll(async () => {
  // The runtimes import the built package: build it (tsc is incremental; `npm test` has built it already).
  await run(join(REPO, 'node_modules/.bin/tsc'), ['--build', CLIENT]);
  dir = await mkdtemp(join(tmpdir(), 'siegel-client-runtimes-'));
  bunker = await useBunker();
  server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
  const images = await writeImages();
  const pdfs = await writePdfs();
  const noise = new Uint8Array(360 * 360 * 3);
  for (let at = 0; at < noise.length; at += 65_536) crypto.getRandomValues(noise.subarray(at, at + 65_536));
  files = {
    'noise.png': await sharp(noise, { raw: { width: 360, height: 360, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer(),
    'photo.png': images.png,
    'paper.pdf': pdfs.objectStreams,
    'post.md': new TextEncoder().encode(TEXTS.markdown),
  };
});
afterAll(async () => {
  await server?.stop();
  await bunker?.stop();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The worker's modules, listed: the script, the client's and @siegel/formats' dist, and for each client module
 * that imports `@siegel/formats/embed` a module of that name beside it (workerd resolves a bare specifier
 * next to its importer, as Wrangler's bundler would have resolved it into node_modules).
 */
function workerModules(): { type: 'ESModule'; path: string; contents?: string }[] {
  const js = (dir: string) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => join(dir, file));
  const formatsEmbed = join(REPO, 'packages/formats/dist/embed.js');
  const client = js(join(CLIENT, 'dist'));
  const aliases = client
    .filter((file) => readFileSync(file, 'utf8').includes("from '@siegel/formats/embed'"))
    .map((file) => ({
      type: 'ESModule' as const,
      path: join(dirname(file), '@siegel/formats/embed'),
      contents: `export * from '${relative(join(dirname(file), '@siegel/formats'), formatsEmbed)}';`,
    }));
  return [
    { type: 'ESModule', path: WORKER },
    { type: 'ESModule', path: ROUND_TRIP },
    ...client.map((path) => ({ type: 'ESModule' as const, path })),
    ...js(join(REPO, 'packages/formats/dist')).map((path) => ({ type: 'ESModule' as const, path })),
    ...aliases,
  ];
}

/**
 * The checks every runtime must pass for each file. All three send a stream as a request body, so upload
 * progress comes in pieces of at most 64 KiB (a body sent whole would report twice: 0, then all).
 */
function expectSigned(reports: FileReport[], title: string): void {
  expect(reports.map((report) => report.name).sort()).toEqual(Object.keys(files).sort());
  for (const report of reports) {
    expect(report, report.name).toMatchObject({
      alreadySigned: [false, true],
      authors: ['Ana Lima', '李小龙'],
      title,
      inspected: { hash: true, already_signed: true },
      verified: true,
    });
    expect(report.progressLast, report.name).toBe(report.progressTotal);
    expect(report.progressSteps, report.name).toBeGreaterThanOrEqual(
      Math.ceil(report.progressTotal / 65_536),
    );
  }
}

/** Run client-script.mjs with a runtime's command line; its JSON report. */
async function runScript(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const names = Object.keys(files);
  for (const name of names)
    await writeFile(join(dir, `${command === DENO ? 'deno' : 'node'}-${name}`), files[name] as Uint8Array);
  const paths = names.map((name) => join(dir, `${command === DENO ? 'deno' : 'node'}-${name}`));
  const { stdout } = await run(command, [...args, SCRIPT, server.url, server.token, ...paths], { env });
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
    runtime: string;
    results: FileReport[];
    authorRequired: string;
  };
  // The script names its files by path; compare by the name given here.
  for (const result of report.results) result.name = result.name.replace(/^(node|deno)-/, '');
  return report;
}

describe('@siegel/client outside Node 24', () => {
  it('on Node 20 (the system Node)', async () => {
    const report = await runScript(SYSTEM_NODE, []);
    expect(report.runtime).toMatch(/^Node 20\./);
    expect(report.authorRequired).toBe('AUTHOR_REQUIRED');
    expectSigned(report.results, `Runtime ${report.runtime}`);
  });

  it('on Deno, with network access to the server only and read access to the package (its dependency too), the round trip and the inputs', async () => {
    const report = await runScript(
      DENO,
      [
        'run',
        '--no-prompt',
        `--allow-read=${CLIENT},${FORMATS.join(',')},${ROUND_TRIP},${dir}`,
        `--allow-net=127.0.0.1`,
        '--allow-env',
        '--no-config',
        // Bare imports (`@siegel/formats/embed`) from the installed node_modules, as after `npm install`.
        '--node-modules-dir=manual',
      ],
      { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(dir, 'deno-cache') },
    );
    expect(report.runtime).toMatch(/^Deno 2\./);
    expect(report.authorRequired).toBe('AUTHOR_REQUIRED');
    expectSigned(report.results, `Runtime ${report.runtime}`);
  });

  it('in workerd (a Cloudflare Worker, through Miniflare)', async () => {
    const worker = new Miniflare({
      modules: workerModules(),
      modulesRoot: REPO,
      bindings: { SERVER: server.url, TOKEN: server.token },
      compatibilityDate: '2025-01-01',
    });
    try {
      const reports: Array<FileReport & { runtime: string; authorRequired: string }> = [];
      for (const [name, bytes] of Object.entries(files)) {
        const response = await worker.dispatchFetch(`http://worker/?name=${name}`, {
          method: 'POST',
          body: bytes as Uint8Array<ArrayBuffer>,
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        reports.push(JSON.parse(text));
      }
      expect(reports[0]?.runtime).toMatch(/^workerd Cloudflare-Workers/);
      for (const report of reports) expect(report.authorRequired, report.name).toBe('AUTHOR_REQUIRED');
      expectSigned(reports, 'Runtime workerd');
    } finally {
      await worker.dispose();
    }
  });
});
