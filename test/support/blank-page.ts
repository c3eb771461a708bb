import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { launchChromium } from './chromium.js';

/** A Chromium tab on a blank page; `close()` ends the browser and the server. */
export interface BlankPage {
  page: Page;
  close(): Promise<void>;
}

/** A blank page served from loopback, for any browser: its URL and how to stop serving it. */
export interface BlankServer {
  url: string;
  close(): Promise<unknown>;
}

/**
 * Serve a blank page from loopback. `crypto.subtle` needs a secure context: a page from 127.0.0.1 is one,
 * `about:blank` is not.
 */
export async function serveBlankPage(): Promise<BlankServer> {
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>blank</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Serve the blank page, `launch` a browser and `open` the page in it; `close()` of the result ends the
 * browser and the server. Whatever fails on the way stops what was started.
 */
export async function openOnBlankPage<Browser extends { close(): Promise<unknown> }, Opened>(
  launch: () => Promise<Browser>,
  open: (browser: Browser, url: string) => Promise<Opened>,
): Promise<Opened & { close(): Promise<void> }> {
  const blank = await serveBlankPage();
  const browser = await launch().catch(async (error: unknown) => {
    await blank.close();
    throw error;
  });
  const close = async () => {
    await browser.close();
    await blank.close();
  };
  try {
    return { ...(await open(browser, blank.url)), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Launch Chromium and open the blank loopback page of `serveBlankPage`. */
export function openBlankPage(): Promise<BlankPage> {
  return openOnBlankPage(launchChromium, async (chromium, url) => {
    const page = await chromium.context.newPage();
    await page.goto(url);
    return { page };
  });
}
