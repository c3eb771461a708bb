// Issue 26, acceptance 3: examples/image-optimizer turns a photo without metadata plus an author into a signed
// WebP whose verify link says verified — driven as a third party would: the CLI as a child process, and the
// web form (`node web.mjs`) in Chromium. Real parts throughout: a bunker, the server, sharp, exiftool.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';
import { readWithExiftool } from '../../packages/client/test/support/inputs.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/image-optimizer/', import.meta.url));
const SIGN_ROUTE = '/api/sign-image-v2';

/** Run the example's CLI with this Node; resolves with its exit code and output (never rejects on exit ≠ 0). */
function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(EXAMPLE, 'cli.mjs'), ...args],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The hash a verify link names (`…/verify?hash=…`). */
function hashOf(verifyUrl: string): string {
  return new URL(verifyUrl).searchParams.get('hash') ?? '';
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Open a verify link in Chromium and return what the page says. */
async function readVerifyPage(page: Page, url: string) {
  await page.goto(url);
  await page.waitForSelector('#result');
  return {
    verified: await page.getAttribute('#result', 'data-verified'),
    verdict: (await page.textContent('.verdict'))?.trim(),
    author: await page.textContent('#result-author'),
    title: await page.textContent('#result-title'),
  };
}

describe('examples/image-optimizer (issue 26, acceptance 3)', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let proxy: CountingProxy;
  let browser: LaunchedChromium;
  let page: Page;
  let dir: string;
  let photo: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'siegel-image-optimizer-'));
    // A photo without metadata: sharp writes a JPEG from raw pixels (a colour gradient) and adds nothing.
    const width = 640;
    const height = 480;
    const pixels = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        pixels[i] = (x * 255) / width;
        pixels[i + 1] = (y * 255) / height;
        pixels[i + 2] = ((x + y) * 97) % 256;
      }
    }
    photo = join(dir, 'harbour.jpg');
    await writeFile(
      photo,
      await sharp(pixels, { raw: { width, height, channels: 3 } })
        .jpeg()
        .toBuffer(),
    );
    bunker = await useBunker();
    server = await startServer({ bunker, env: { SIGN_RATE_LIMIT: '1000' } });
    // In front of the server, to tell whether anything was uploaded at all.
    proxy = await startCountingProxy(server.url);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the input photo has no author: exiftool reads no creator, and the server would not sign it', async () => {
    const reading = (await readWithExiftool([photo])).get(photo);
    expect(reading?.creators).toEqual([]);
    expect(reading?.title).toBeUndefined();
    const client = createClient({ baseUrl: server.url, token: server.token });
    const inspected = await client.inspect(new Uint8Array(await readFile(photo)), {
      fileName: 'harbour.jpg',
    });
    expect([inspected.signable, inspected.error]).toEqual([false, 'AUTHOR_REQUIRED']);
  });

  describe('the CLI', () => {
    it('writes a WebP with the authors and title and prints a verify link that says verified', async () => {
      const run = await runCli(
        [
          photo,
          '--author',
          'Ana Lima; Björn Ødegård',
          '--author',
          'Chen Wei',
          '--title',
          'Harbour at dusk',
          '--width',
          '320',
        ],
        { SIEGEL_SERVER_URL: server.url, SIEGEL_SIGN_TOKEN: server.token },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const verifyUrl = /^Verify: (\S+)$/m.exec(run.stdout)?.[1] ?? '';
      expect(verifyUrl.startsWith(`${server.url}/verify?hash=`)).toBe(true);

      const output = join(dir, 'harbour-optimized.webp');
      const bytes = new Uint8Array(await readFile(output));
      expect(sha256(bytes)).toBe(hashOf(verifyUrl));
      const info = await sharp(bytes).metadata();
      expect([info.format, info.width, info.height]).toEqual(['webp', 320, 240]);
      const reading = (await readWithExiftool([output])).get(output);
      expect(reading?.creators).toEqual(['Ana Lima', 'Björn Ødegård', 'Chen Wei']);
      expect(reading?.title).toBe('Harbour at dusk');

      const shown = await readVerifyPage(page, verifyUrl);
      expect(shown.verified).toBe('true');
      expect(shown.verdict).toContain('Verified');
      expect(shown.author).toBe('Ana Lima, Björn Ødegård, Chen Wei');
      expect(shown.title).toBe('Harbour at dusk');
    });

    it('without --author: exit 2 with the usage, and nothing is uploaded', async () => {
      proxy.reset();
      const run = await runCli([photo, '--title', 'No author'], {
        SIEGEL_SERVER_URL: proxy.url,
        SIEGEL_SIGN_TOKEN: server.token,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--author is required');
      expect(run.stderr).toContain('Usage: siegel-optimize <image> --author');
      expect(run.stdout).toBe('');
      expect(proxy.requests).toEqual([]);
    });

    it('issue 39 item 8: an author the server refuses — says to pass --author, not the server’s metadata advice', async () => {
      const run = await runCli([photo, '--author', 'Unknown', '--format', 'png'], {
        SIEGEL_SERVER_URL: server.url,
        SIEGEL_SIGN_TOKEN: server.token,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'siegel-optimize: The Siegel server does not sign “Unknown” as an author: it needs a real name, not a placeholder such as “unknown” or “test”, and at least 2 characters. Pass the real name: --author "Name" [AUTHOR_REQUIRED]\n',
      );
      // Before: the server's advice for files, which the optimizer's user has no use for.
      expect(run.stderr).not.toMatch(/XMP|dc:creator|exiftool|IPTC|EXIF/);
      expect(run.stdout).not.toContain('Verify:');
    });

    it('with a token the server refuses: exit 1 with the typed error’s message', async () => {
      const run = await runCli([photo, '--author', 'Ana Lima', '--format', 'png'], {
        SIEGEL_SERVER_URL: server.url,
        SIEGEL_SIGN_TOKEN: 'not-a-token-of-this-server',
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^siegel-optimize: .+ \[UNAUTHORIZED\]\n$/);
      expect(run.stdout).not.toContain('Verify:');
    });
  });

  describe('the web form (node web.mjs) in Chromium', () => {
    let web: ChildProcess;
    let formUrl: string;

    beforeAll(async () => {
      web = spawn(process.execPath, [join(EXAMPLE, 'web.mjs')], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PORT: '0',
          SIEGEL_SERVER_URL: proxy.url,
          SIEGEL_SIGN_TOKEN: server.token,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      web.stderr?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      formUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`web.mjs did not start within 20 s:\n${out}`)),
          20_000,
        );
        web.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /Image optimizer form at (http:\/\/\S+)/.exec(out)?.[1];
          if (url) {
            clearTimeout(timer);
            resolve(url);
          }
        });
        web.once('exit', (code) => reject(new Error(`web.mjs exited with ${code}:\n${out}`)));
      });
    });
    afterAll(async () => {
      if (web && web.exitCode === null) {
        const exited = new Promise((resolve) => web.once('exit', resolve));
        web.kill('SIGTERM');
        await exited;
      }
    });

    it('an image and an author give a page with a verify link that says verified, and the signed file', async () => {
      proxy.reset();
      await page.goto(formUrl);
      await page.setInputFiles('#file', photo);
      await page.fill('#author', 'Dana Okafor');
      await page.fill('#title', 'Harbour from the form');
      await page.fill('#width', '200');
      expect(await page.inputValue('#format')).toBe('webp');
      await Promise.all([page.waitForURL(/\/optimize$/), page.click('#submit')]);
      expect(await page.textContent('#result-title')).toBe('Signed');
      expect(proxy.count('POST', SIGN_ROUTE)).toBe(1);
      // The sign token stays on the example's server.
      expect(await page.content()).not.toContain(server.token);

      const verifyUrl = (await page.getAttribute('#verify-link', 'href')) ?? '';
      const download = (await page.getAttribute('#download-link', 'href')) ?? '';
      const bytes = new Uint8Array(await (await fetch(new URL(download, formUrl))).arrayBuffer());
      expect(sha256(bytes)).toBe(hashOf(verifyUrl));
      const saved = join(dir, 'from-form.webp');
      await writeFile(saved, bytes);
      expect((await sharp(bytes).metadata()).format).toBe('webp');
      expect((await readWithExiftool([saved])).get(saved)?.creators).toEqual(['Dana Okafor']);

      await page.click('#verify-link');
      await page.waitForSelector('#result');
      expect(page.url()).toBe(verifyUrl);
      expect(await page.getAttribute('#result', 'data-verified')).toBe('true');
      expect(await page.textContent('.verdict')).toContain('Verified');
      expect(await page.textContent('#result-author')).toBe('Dana Okafor');
    });

    it('issue 39 item 8: an author the server refuses gets the form’s own advice, the Author field', async () => {
      proxy.reset();
      await page.goto(formUrl);
      await page.setInputFiles('#file', photo);
      await page.fill('#author', 'Test');
      await Promise.all([page.waitForURL(/\/optimize$/), page.click('#submit')]);
      const error = (await page.textContent('#error')) ?? '';
      expect(error).toContain('The Siegel server does not sign “Test” as an author');
      expect(error).toContain('Enter the real name in the Author field.');
      expect(error).not.toMatch(/XMP|dc:creator|exiftool|IPTC|EXIF/);
      expect(proxy.count('POST', SIGN_ROUTE)).toBe(1);
      expect(await page.inputValue('#author')).toBe('Test');
    });

    it('an author of only blanks and separators gets a clear message and uploads nothing', async () => {
      proxy.reset();
      await page.goto(formUrl);
      await page.setInputFiles('#file', photo);
      // The field is `required`; blanks pass the browser's check, so the example's server must refuse them.
      await page.fill('#author', ' ; ');
      await Promise.all([page.waitForURL(/\/optimize$/), page.click('#submit')]);
      expect(await page.textContent('#error')).toContain('Enter the author');
      expect(proxy.requests).toEqual([]);
    });
  });
});
