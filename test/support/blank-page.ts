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

/** Launch Chromium and open the blank loopback page of `serveBlankPage`. */
export async function openBlankPage(): Promise<BlankPage> {
  const blank = await serveBlankPage();
  const closeServer = blank.close;
  const chromium = await launchChromium().catch(async (error: unknown) => {
    await closeServer();
    throw error;
  });
  const close = async () => {
    await chromium.close();
    await closeServer();
  };
  try {
    const page = await chromium.context.newPage();
    await page.goto(blank.url);
    return { page, close };
  } catch (error) {
    await close();
    throw error;
  }
}
