// Issue 12, acceptance 4: a sign response's `urls.verify` is the human verify page,
// `{base_url}/verify?hash=<hash>` (what the existing VisionFusen clients open), and that page, opened in
// Chromium, shows the file as verified; the API address is `urls.verify_api`. Against the real server process
// and a real bunker; the stored file is edited on disk to show the same page turning to "not verified".
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type RunningServer, SERVER_FIXTURES, signOverHttp, startServer } from './server-process.js';

const FIXTURE = 'png-author.png';

describe('urls.verify is the verify page of the hash (real server, Chromium)', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let browser: LaunchedChromium;
  let page: Page;
  let bytes: Buffer;
  let hash: string;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON answer of the sign API
  let signed: Record<string, any>;

  beforeAll(async () => {
    bunker = await useBunker();
    server = await startServer({ bunker });
    bytes = await readFile(join(SERVER_FIXTURES, FIXTURE));
    hash = createHash('sha256').update(bytes).digest('hex');
    const response = await signOverHttp(server, FIXTURE, bytes);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    signed = response.body;
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  /** Open `url` in Chromium and read the verdict the page shows. */
  async function openVerdict(url: string) {
    await page.goto(url);
    await page.waitForSelector('#result[data-verified]');
    return {
      verified: await page.getAttribute('#result', 'data-verified'),
      verdict: await page.textContent('.verdict'),
      hash: await page.textContent('#result-hash'),
      author: await page.$eval('#result-author', (element) => element.textContent).catch(() => null),
    };
  }

  it('answers `urls.verify` = `{base_url}/verify?hash=<hash>` and `urls.verify_api` = the API address', () => {
    expect(signed.hash).toBe(hash);
    expect(signed.urls.verify).toBe(`${server.url}/verify?hash=${hash}`);
    expect(signed.urls.verify_api).toBe(`${server.url}/api/verify?hash=${hash}`);
  });

  it('`urls.verify` opened in Chromium shows the file as verified, with its author and hash', async () => {
    const shown = await openVerdict(signed.urls.verify);
    expect(shown).toEqual({
      verified: 'true',
      verdict: '✓ Verified: this exact file was signed.',
      hash,
      author: 'Jürgen Müller',
    });
    expect(await page.textContent('#result-title')).toBe('Sonnenuntergang am Meer');
  });

  it('the page shows the verdict without its script (rendered by the server)', async () => {
    await page.route('**/assets/verify.js', (route) => route.abort());
    try {
      expect((await openVerdict(signed.urls.verify)).verified).toBe('true');
    } finally {
      await page.unroute('**/assets/verify.js');
    }
  });

  it('`urls.verify_api` answers the API JSON, verified', async () => {
    const response = await fetch(signed.urls.verify_api);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toContain('application/json');
    const body = await response.json();
    expect(body).toMatchObject({ verified: true, hash, metadata: { author: 'Jürgen Müller' } });
    expect(body.urls).toEqual(signed.urls);
  });

  it('the same page shows a tampered file as not verified, and an unknown hash as not found', async () => {
    const path = join(server.dataDir, 'files', 'documents', `${hash}.png`);
    const altered = Buffer.from(bytes);
    altered[altered.length - 20] = (altered[altered.length - 20] ?? 0) ^ 0x01;
    await writeFile(path, altered);
    try {
      const shown = await openVerdict(signed.urls.verify);
      expect(shown.verified).toBe('false');
      expect(shown.verdict).toContain('Not verified');
      expect(shown.hash).toBe(hash);
      expect(await page.textContent('#result .reasons')).toContain("The stored file's bytes do not match");
    } finally {
      await writeFile(path, bytes);
    }
    expect((await openVerdict(signed.urls.verify)).verified).toBe('true');

    const unknown = createHash('sha256').update('a file nobody signed').digest('hex');
    const notFound = await openVerdict(`${server.url}/verify?hash=${unknown}`);
    expect(notFound).toMatchObject({ verified: 'false', hash: unknown, author: null });
    expect(notFound.verdict).toContain('Not found');
  });

  it('a second upload of the same file (409 ALREADY_SIGNED) carries the same URLs', async () => {
    const again = await signOverHttp(server, 'again.png', bytes);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ALREADY_SIGNED');
    expect(again.body.urls).toEqual(signed.urls);
  });
});
