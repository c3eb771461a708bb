// Issue 26, acceptance 1 (Node 20): the built @siegel/client runs on Node 20 — the system's /usr/bin/node,
// older than the Node 24 the repository pins — against the real server: embedAuthor (PNG, PDF through
// DecompressionStream, Markdown), sign, sign again, inspect, verify, and the typed AUTHOR_REQUIRED error.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXTS, writeImages, writePdfs } from '../../packages/client/test/support/inputs.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';

const run = promisify(execFile);
const SYSTEM_NODE = '/usr/bin/node';
const SCRIPT = fileURLToPath(new URL('./node20-client.mjs', import.meta.url));
const CLIENT = fileURLToPath(new URL('../../packages/client/', import.meta.url));

let bunker: RunningBunker;
let server: RunningServer;
let dir: string;

beforeAll(async () => {
  // The script imports the built package: build it (tsc is incremental; `npm test` has built it already).
  await run(fileURLToPath(new URL('../../node_modules/.bin/tsc', import.meta.url)), ['--build', CLIENT]);
  dir = await mkdtemp(join(tmpdir(), 'siegel-client-node20-'));
  bunker = await startBunker();
  server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
});
afterAll(async () => {
  await server?.stop();
  await bunker?.stop();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('@siegel/client on Node 20', () => {
  it('the system Node is 20', async () => {
    const { stdout } = await run(SYSTEM_NODE, ['--version']);
    expect(stdout.trim()).toMatch(/^v20\./);
  });

  it('embeds, signs, signs again, inspects and verifies against the real server', async () => {
    const images = await writeImages();
    const pdfs = await writePdfs();
    const noise = new Uint8Array(360 * 360 * 3);
    for (let at = 0; at < noise.length; at += 65_536) crypto.getRandomValues(noise.subarray(at, at + 65_536));
    const large = await sharp(noise, { raw: { width: 360, height: 360, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const files = {
      'noise.png': large,
      'photo.png': images.png,
      'paper.pdf': pdfs.objectStreams,
      'post.md': new TextEncoder().encode(TEXTS.markdown),
    };
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
    const { stdout } = await run(SYSTEM_NODE, [
      SCRIPT,
      server.url,
      server.token,
      ...Object.keys(files).map((name) => join(dir, name)),
    ]);
    const report = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(report.node).toMatch(/^20\./);
    expect(report.authorRequired).toBe('AUTHOR_REQUIRED');
    expect(report.results).toHaveLength(4);
    for (const result of report.results) {
      expect(result, result.name).toMatchObject({
        alreadySigned: [false, true],
        authors: ['Ana Lima', '李小龙'],
        title: `Node ${report.node}`,
        inspected: { hash: true, already_signed: true },
        verified: true,
      });
      // Node 20's fetch streams the body: progress is counted in 64 KiB pieces up to the whole body (a
      // body sent in one piece would report twice: 0 and all).
      expect(result.progressLast, result.name).toBe(result.progressTotal);
      expect(result.progressSteps, result.name).toBeGreaterThanOrEqual(
        Math.ceil(result.progressTotal / 65_536),
      );
    }
  });
});
