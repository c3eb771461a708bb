import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { inject } from 'vitest';
import { refuseVerifyPageRelays } from './route-relay.ts';

/** Debian's Chromium, as installed by `.ci/run` (`apt-get install chromium`). No browser downloads. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless, as root, and no background networking (this machine's network is closed; Chromium's own
 * connections would only add noise and delays).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedChromium {
  /** A browser context with a fresh, empty profile. `context.newPage()` opens a tab. */
  context: BrowserContext;
  /** Closes the context (and the browser, or the connection to the shared one) and deletes its profile. */
  close(): Promise<void>;
}

/**
 * A fresh, empty browser context in Debian's Chromium. In the `real` and `slow` projects it is a new
 * context of the run's one shared Chromium (test/setup/global.ts): a context shares no cookies, storage or
 * cache with any other. Elsewhere (a bench, `{ own: true }`) it is a Chromium of its own, started headless
 * with a fresh `--user-data-dir`.
 */
export async function launchChromium(options: { own?: boolean } = {}): Promise<LaunchedChromium> {
  const endpoint = options.own ? undefined : sharedEndpoint();
  if (endpoint) {
    const browser = await chromium.connect(endpoint);
    const context = await browser.newContext();
    await refuseVerifyPageRelays(context);
    return {
      context,
      async close() {
        await context.close();
        await browser.close();
      },
    };
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'siegel-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  await refuseVerifyPageRelays(context);
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The shared Chromium's endpoint, where the project provides one. */
function sharedEndpoint(): string | undefined {
  try {
    return inject('chromiumEndpoint');
  } catch {
    return undefined; // not in a vitest worker (a bench)
  }
}
