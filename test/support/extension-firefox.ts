// The browser extension in Debian's Firefox ESR: installed as a temporary add-on over WebDriver BiDi
// (`webExtension.install`, through puppeteer-core), with a fixed `extensions.webextensions.uuids`
// preference, so its own pages are at a known `moz-extension://` address. The extension's state for a tab is
// read from its own page opened in a tab (`browser.action.getTitle`), as a reader's assistive tech reads it.
import { readFile } from 'node:fs/promises';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { eventually } from './eventually.ts';
import { EXTENSION_DIR, FINAL_STATES } from './extension.ts';
import { FIREFOX_PATH } from './firefox.ts';
import { stopGroups } from './process-group.ts';

/** The extension's internal UUID in the test profile: its pages are at `moz-extension://UUID/`. */
export const FIREFOX_EXTENSION_UUID = '5e1e9c3a-7f0b-4d2a-9c61-3a8f2b7d4e10';

/** Firefox with the extension installed. */
export interface FirefoxExtension {
  browser: Browser;
  /** `moz-extension://UUID/`. */
  base: string;
  /** The extension's options page, open in a tab: where its APIs are called from. */
  extensionPage: Page;
  /** Set the reader's relays (the options page's list) in the extension's storage. */
  setRelays(relays: string[]): Promise<void>;
  /** Open `url` in a new tab and wait for the action's title to start with a final state's word. */
  stateAt(url: string, ms?: number): Promise<string>;
  close(): Promise<void>;
}

/** The WebExtension API of an extension page, as far as these helpers call it. */
interface ExtensionApi {
  storage: { local: { set(items: Record<string, unknown>): Promise<void> } };
  tabs: { query(query: object): Promise<Array<{ id?: number; url?: string }>> };
  action: { getTitle(details: { tabId: number }): Promise<string> };
}

/**
 * Launch Firefox ESR headless and install the extension from `path` (the unpacked build, or the store zip)
 * over BiDi; the add-on's id is its manifest's `browser_specific_settings.gecko.id`.
 */
export async function launchFirefoxWithExtension(
  path: string = EXTENSION_DIR,
  manifestDir: string = EXTENSION_DIR,
): Promise<FirefoxExtension> {
  const manifest = JSON.parse(await readFile(`${manifestDir}/manifest.json`, 'utf8'));
  const id: string = manifest.browser_specific_settings.gecko.id;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    // WebDriver BiDi navigates only to web URLs unless system access is allowed: the extension's own page
    // is a `moz-extension://` one (Firefox's remote agent, `isWebdriverSafeNavigationURL`).
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: {
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
      'network.proxy.type': 0,
      'extensions.webextensions.uuids': JSON.stringify({ [id]: FIREFOX_EXTENSION_UUID }),
    },
  });
  try {
    const installed = await browser.installExtension(path);
    if (installed !== id) throw new Error(`installed \`${installed}\`, expected \`${id}\``);
    const base = `moz-extension://${FIREFOX_EXTENSION_UUID}/`;
    const extensionPage = await browser.newPage();
    // The navigation happens (the page runs with the extension's API), but puppeteer never sees it end in
    // the extension's process: its wait is cut short and the page's own address checked instead.
    await extensionPage
      .goto(`${base}options.html`, { waitUntil: 'domcontentloaded', timeout: 3_000 })
      .catch(() => undefined);
    await eventually(
      () =>
        extensionPage
          .evaluate(() => location.href)
          .then((href) => href.startsWith(base))
          .catch(() => false),
      15_000,
      100,
    );
    const titleOf = (url: string) =>
      extensionPage.evaluate(async (wanted) => {
        const api = (globalThis as unknown as { browser: ExtensionApi }).browser;
        const tab = (await api.tabs.query({})).find((one) => one.url === wanted);
        return tab?.id === undefined ? '' : api.action.getTitle({ tabId: tab.id });
      }, url);
    return {
      browser,
      base,
      extensionPage,
      async setRelays(relays) {
        await extensionPage.evaluate(async (list) => {
          const api = (globalThis as unknown as { browser: ExtensionApi }).browser;
          await api.storage.local.set({ relays: list });
        }, relays);
      },
      async stateAt(url, ms = 30_000) {
        const page = await browser.newPage();
        await page.goto(url);
        let title = '';
        await eventually(
          async () => {
            title = await titleOf(page.url());
            return FINAL_STATES.some((state) => title.startsWith(`${state} `));
          },
          ms,
          100,
        ).catch((error: Error) => {
          throw new Error(`${error.message}: the tab's title is still “${title}”`);
        });
        await page.close();
        return title;
      },
      close: () => closeFirefox(browser),
    };
  } catch (error) {
    await closeFirefox(browser);
    throw error;
  }
}

/**
 * Close Firefox, then stop its process group (puppeteer starts it detached: the group's id is its pid) —
 * content processes outlive the parent by a moment — so no Firefox outlives its test file.
 */
async function closeFirefox(browser: Browser): Promise<void> {
  const pid = browser.process()?.pid;
  await browser.close().catch(() => undefined);
  if (pid !== undefined) await stopGroups([pid], 2_000);
}
