import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchChromium } from '../../support/chromium.js';
import { serveDirectory } from '../../support/static-server.js';

/**
 * Serve a build output on loopback (under `base`, as the site is deployed), open the verify page of
 * `eventId` in Chromium at the site's own address and return its settled verdict (`data-state`: `valid`,
 * `invalid`, …) and text. The examples are signed for their public URL (`https://…-example.siegel.invalid`),
 * and an event binds its page's address: Chromium asks for that origin and every request is answered from
 * the loopback server, as a deployed copy would answer it (a page checked at 127.0.0.1 is a copy elsewhere).
 */
export async function readVerifyVerdict(
  outDir: string,
  eventId: string | undefined,
  options: { base?: string } = {},
): Promise<{ state: string | null; text: string }> {
  const server = await serveDirectory(outDir, options);
  const event = JSON.parse(await readFile(join(outDir, 'verify', `${eventId}.json`), 'utf8')) as {
    tags: string[][];
  };
  const site = new URL(event.tags.find((tag) => tag[0] === 'url')?.[1] ?? server.url).origin;
  const local = new URL(server.url).origin;
  const browser = await launchChromium();
  try {
    await browser.context.route(`${site}/**`, async (route) => {
      const url = new URL(route.request().url());
      const response = await fetch(`${local}${url.pathname}${url.search}`);
      await route.fulfill({
        status: response.status,
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
        body: Buffer.from(await response.arrayBuffer()),
      });
    });
    const tab = await browser.context.newPage();
    await tab.goto(`${site}${new URL(server.url).pathname}verify/${eventId}/`);
    const status = tab.locator('#siegel-status');
    await status.locator('xpath=self::*[@data-state!="pending"]').waitFor({ timeout: 20_000 });
    return { state: await status.getAttribute('data-state'), text: (await status.textContent()) ?? '' };
  } finally {
    await browser.close();
    await server.close();
  }
}
