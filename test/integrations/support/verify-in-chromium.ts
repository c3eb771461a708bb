import { launchChromium } from '../../support/chromium.js';
import { serveDirectory } from '../../support/static-server.js';

/**
 * Serve a build output on loopback (under `base`, as the site is deployed), open the verify page of
 * `eventId` in Chromium and return its settled verdict (`data-state`: `valid`, `invalid`, …) and text.
 */
export async function readVerifyVerdict(
  outDir: string,
  eventId: string | undefined,
  options: { base?: string } = {},
): Promise<{ state: string | null; text: string }> {
  const server = await serveDirectory(outDir, options);
  const browser = await launchChromium();
  try {
    const tab = await browser.context.newPage();
    await tab.goto(`${server.url}verify/${eventId}/`);
    const status = tab.locator('#siegel-status');
    await status.locator('xpath=self::*[@data-state!="pending"]').waitFor({ timeout: 20_000 });
    return { state: await status.getAttribute('data-state'), text: (await status.textContent()) ?? '' };
  } finally {
    await browser.close();
    await server.close();
  }
}
