import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { refuseVerifyPageRelays } from './route-relay.ts';

/** Debian's Chromium, as installed by `.ci/run` (`apt-get install chromium`). No browser downloads. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless, as root, and no background networking (this machine's network is closed; Chromium's own
 * connections would only add noise and delays).
 *
 * No site isolation (`--disable-site-isolation-trials`): with it, every sandboxed iframe gets a renderer
 * process of its own (`IsolateSandboxedIframes`), and the verify page shows the signed content in one, so
 * each verify page opened started a process: 20 loads of a page with an empty-`sandbox` iframe cost
 * 13.3 CPU-s, 4.5 without (3.5 without the iframe), about a fifth of the suite's Chromium time. What is
 * isolated in which process is Chromium's defence against side channels (Spectre); what a page may do,
 * what it sees and how it renders — all the tests read — is the same either way.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-site-isolation-trials',
];

export interface LaunchedChromium {
  /** A browser context with a fresh, empty profile. `context.newPage()` opens a tab. */
  context: BrowserContext;
  /**
   * The context's one reusable tab (opened at the first call), on a new `about:blank` document: `goto` from
   * there always loads a new document, also where only the fragment differs from the last address. A tab
   * per page cost about 0.9 CPU-s of Chromium (a new renderer process and web contents; measured: a file
   * of 24 verify pages took 71 CPU-s with a tab each, 37 with this one); a navigation in the same tab 0.2.
   * The tab keeps what is added to it (listeners, routes, init scripts): a test that watches a tab's events
   * opens one of its own with `context.newPage()`.
   */
  tab(): Promise<Page>;
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
      tab: reusableTab(context),
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
    tab: reusableTab(context),
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** {@link LaunchedChromium.tab} of `context`. */
function reusableTab(context: BrowserContext): () => Promise<Page> {
  let tab: Page | undefined;
  return async () => {
    if (tab === undefined || tab.isClosed()) tab = await context.newPage();
    await tab.goto('about:blank');
    return tab;
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
