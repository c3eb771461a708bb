// Acceptance 5 of issue 3, end to end: a generated site signed by the real `siegel` CLI against a real
// bunker process, served by a static server, its verify page opened in Chromium — valid; one word of the
// page's <main> changed — invalid, and why; `siegel verify` on the same directory agrees both times.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSignatureBlock } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { runSiegel } from '../site/support.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { readVerdict, type Verdict } from '../support/read-verdict.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

const PAGE_PATH = 'blog/seals/index.html';
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A post about seals</title>
</head>
<body>
<header><nav><a href="../../">Home</a></nav></header>
<main>
<h1>Seals</h1>
<p>A seal proves who closed the letter &amp; that nobody opened it.</p>
</main>
</body>
</html>
`;

let bunker: RunningBunker;
let server: StaticServer;
let chromium: LaunchedChromium;
let root: string;
let dist: string;

async function readVerdictOf(eventId: string): Promise<Verdict> {
  return readVerdict(await chromium.tab(), server.url, eventId);
}

beforeAll(async () => {
  bunker = await useBunker();
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-verify-site-'));
  dist = join(root, 'dist');
  await generateSite(join(root, 'build'), 6, 11);
  await cp(join(root, 'build'), dist, { recursive: true });
  await mkdir(join(dist, 'blog', 'seals'), { recursive: true });
  await writeFile(join(dist, PAGE_PATH), PAGE);
  // Served under a sub-path, as a site deployed below the origin's root.
  server = await serveDirectory(dist, { base: '/site' });
  await writeFile(
    join(root, '.env'),
    `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=${bunker.apiToken}\nBUNKER_KEY_NAME=${bunker.keyName}\nSITE_URL=${server.url}\n`,
  );
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a site signed by `siegel sign`, checked in Chromium and by `siegel verify`', () => {
  it('valid, then invalid naming the page after one word of its <main> changed — both agree', async () => {
    const sign = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(sign.stderr).toBe('');
    expect(sign.code).toBe(0);
    expect(sign.stdout).toContain('Siegel: 7 signed, 0 unchanged, 0 skipped (no <main>), 0 failed');
    const signed = await readFile(join(dist, PAGE_PATH), 'utf8');
    const block = readSignatureBlock(signed);
    expect(block?.pubkey).toBe(bunker.pubkey);
    const eventId = block?.eventId as string;
    expect(eventId).toMatch(/^[0-9a-f]{64}$/);

    const valid = await readVerdictOf(eventId);
    expect(valid).toMatchObject({ state: 'valid', reason: 'ok' });
    expect(server.requests).toContain('/site/blog/seals/');
    const verifyValid = await runSiegel(['verify', 'dist', '--pubkey', bunker.pubkey], { cwd: root });
    expect(verifyValid.code).toBe(0);
    expect(verifyValid.stdout).toContain('Siegel verify: 7 valid, 0 invalid, 0 not found');
    // SITE_URL in .env is the address each page is judged at: no address warning.
    expect(verifyValid.stdout).not.toContain('address.unchecked');

    // One word of <main> changes; the block (and the event) stay as they were.
    const changed = signed.replace('nobody opened it', 'somebody opened it');
    expect(changed).not.toBe(signed);
    await writeFile(join(dist, PAGE_PATH), changed);

    const invalid = await readVerdictOf(eventId);
    expect(invalid).toMatchObject({
      state: 'invalid',
      reason: 'hash.mismatch',
      // (The verify page's default relays are out of reach here: currency unchecked, issue 36.)
      codes: ['hash.mismatch', 'block.hash', 'manifest.unchecked'],
    });
    expect(invalid.text).toContain('changed since it was signed');
    expect(invalid.text).toContain(`the signature covers ${block?.hash}`);
    const verifyInvalid = await runSiegel(['verify', 'dist', '--pubkey', bunker.pubkey], { cwd: root });
    expect(verifyInvalid.code).toBe(1);
    expect(verifyInvalid.stdout).toContain('6 valid, 1 invalid, 0 not found');
    // The invalid page is named, with why: the block's hash against the page's hash now.
    expect(verifyInvalid.stdout).toMatch(
      new RegExp(`^INVALID +${PAGE_PATH.replaceAll('.', '\\.')}  \\(siegel-page/2\\)$`, 'm'),
    );
    expect(verifyInvalid.stdout).toContain(
      `the block states the hash \`${block?.hash}\`; the page’s main hashes to`,
    );
    expect(verifyInvalid.stdout).toContain('[hash.mismatch]');
    expect(verifyInvalid.stdout.match(/^INVALID/gm)).toHaveLength(1);
  });
});
