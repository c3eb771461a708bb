import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type RunningServer, SERVER_FIXTURES, startServer } from './server-process.js';

/** Drop a real file on `selector` the way a person's drag and drop does: a `drop` event with a DataTransfer. */
async function dropFile(page: Page, selector: string, name: string): Promise<void> {
  const bytes = await readFile(join(SERVER_FIXTURES, name));
  await page.evaluate(
    ({ selector, name, base64 }) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], name));
      const target = document.querySelector(selector);
      target?.dispatchEvent(
        new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      target?.dispatchEvent(
        new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
    },
    { selector, name, base64: bytes.toString('base64') },
  );
}

describe('the web pages in Chromium', () => {
  let bunker: RunningBunker;
  let server: RunningServer;
  let browser: LaunchedChromium;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    bunker = await useBunker();
    server = await startServer({ bunker });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await bunker?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  it('/tools/sign: a dropped file shows its author and title; signing shows working links', async () => {
    await page.goto(`${server.url}/tools/sign`);
    await page.fill('#token', server.token);
    await dropFile(page, '#drop', 'png-author.png');
    await page.waitForFunction(() => document.getElementById('file-author')?.textContent === 'Jürgen Müller');
    expect(await page.textContent('#file-title')).toBe('Sonnenuntergang am Meer');
    await page.click('#sign-button');
    await page.waitForSelector('#result:not([hidden])');
    expect(await page.textContent('#result-title')).toBe('Signed');
    const fileUrl = await page.getAttribute('#link-file', 'href');
    const bytes = await readFile(join(SERVER_FIXTURES, 'png-author.png'));
    const hash = createHash('sha256').update(bytes).digest('hex');
    expect(fileUrl).toBe(`${server.url}/documents/${hash}.png`);
    expect(await page.getAttribute('#link-page', 'href')).toBe(`${server.url}/events/${hash}/index.html`);
    await page.click('#link-verify');
    await page.waitForSelector('#result[data-verified="true"]');
    expect(await page.textContent('#result-author')).toBe('Jürgen Müller');
  });

  it('/tools/sign: a file without author cannot be signed, and says why', async () => {
    await page.goto(`${server.url}/tools/sign`);
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${server.url}/tools/sign`);
    // Files are read for token holders only (issue 10): without a token the page asks for it first.
    await page.setInputFiles('#file', join(SERVER_FIXTURES, 'pdf-no-author.pdf'));
    await page.waitForFunction(() =>
      /Enter the sign token first/.test(document.getElementById('message')?.textContent ?? ''),
    );
    await page.fill('#token', server.token);
    await page.dispatchEvent('#token', 'change');
    await page.waitForFunction(() => /no author/.test(document.getElementById('message')?.textContent ?? ''));
    expect(await page.isDisabled('#sign-button')).toBe(true);
    // Issue 39: the message's code spans (the file name, the PDF field) are `<code>` elements, not backticks.
    expect(await page.textContent('#message')).not.toContain('`');
    const code = await page.locator('#message code').allTextContents();
    expect(code).toContain('pdf-no-author.pdf');
    expect(code).toContain('/Author');
  });

  it('shows an author containing <script> as text, on the sign page and the verify page', async () => {
    await page.goto(`${server.url}/tools/sign`);
    await page.fill('#token', server.token);
    await dropFile(page, '#drop', 'png-script-author.png');
    const author = '<script>window.__siegelPwned = 1</script>Eve Example';
    await page.waitForFunction((a) => document.getElementById('file-author')?.textContent === a, author);
    expect(await page.textContent('#file-title')).toBe('<img src=x onerror=alert(1)>');
    await page.click('#sign-button');
    await page.waitForSelector('#result:not([hidden])');
    await page.click('#link-verify');
    await page.waitForSelector('#result[data-verified="true"]');
    expect(await page.textContent('#result-author')).toBe(author);
    await page.goto(
      (await page.url()).replace(/\/verify\/.*/, '/events/') +
        createHash('sha256')
          .update(await readFile(join(SERVER_FIXTURES, 'png-script-author.png')))
          .digest('hex') +
        '/',
    );
    expect(await page.textContent('dd.author')).toBe(author);
    expect(await page.evaluate(() => (window as { __siegelPwned?: number }).__siegelPwned)).toBeUndefined();
  });

  it('/verify: a dropped signed file is verified (hashed in the browser); an unsigned one is not found', async () => {
    await page.goto(`${server.url}/verify`);
    await dropFile(page, '#drop', 'png-author.png');
    await page.waitForSelector('#result[data-verified="true"]');
    const hash = createHash('sha256')
      .update(await readFile(join(SERVER_FIXTURES, 'png-author.png')))
      .digest('hex');
    expect(await page.textContent('#result-hash')).toBe(hash);
    expect(await page.textContent('.verdict')).toContain('Verified');

    await page.goto(`${server.url}/verify`);
    await page.setInputFiles('#file', join(SERVER_FIXTURES, 'jpeg-no-author.jpg'));
    await page.waitForSelector('#result[data-verified="false"]');
    expect(await page.textContent('.verdict')).toContain('Not found');

    await page.goto(`${server.url}/verify`);
    await page.fill('#hash', hash);
    await page.click('#hash-form button');
    await page.waitForSelector('#result[data-verified="true"]');
  });

  it('ran without script errors, CSP violations or dialogs', () => {
    // Chromium logs the 404 of an unknown hash as a failed resource; everything else is a problem.
    expect(problems.filter((p) => !/status of 404/.test(p))).toEqual([]);
  });
});
