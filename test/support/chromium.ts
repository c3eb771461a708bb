import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium, as installed by `.ci/run` (`apt-get install chromium`). No browser downloads. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LaunchedChromium {
  /** A browser context with a fresh, empty profile. `context.newPage()` opens a tab. */
  context: BrowserContext;
  /** Closes the browser and deletes its profile. */
  close(): Promise<void>;
}

/**
 * Launch Debian's Chromium headless with a fresh `--user-data-dir` and no background networking (this
 * machine's network is closed; Chromium's own connections would only add noise and delays).
 */
export async function launchChromium(): Promise<LaunchedChromium> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'siegel-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
