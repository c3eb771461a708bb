import { access, constants } from 'node:fs/promises';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type BlankPage, openBlankPage, openOnBlankPage } from './blank-page.js';

/**
 * Debian's Firefox ESR, as installed by `.ci/run` (`apt-get install firefox-esr`). Stock Firefox speaks
 * WebDriver BiDi, which puppeteer-core drives; playwright's Firefox would need its own patched build. No
 * browser downloads.
 */
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/**
 * Launch Debian's Firefox ESR headless over WebDriver BiDi. puppeteer-core gives it a fresh profile in the
 * temp directory (with its automation preferences: no updates, no telemetry, no first-run pages) and deletes
 * it on `browser.close()`.
 */
export async function launchFirefox(): Promise<Browser> {
  try {
    await access(FIREFOX_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Firefox not found at ${FIREFOX_PATH}: install Debian's Firefox ESR (apt-get install firefox-esr) ` +
        'or set FIREFOX_PATH to a Firefox binary.',
    );
  }
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    // No proxy detection, captive-portal or connectivity checks: this machine's network is closed.
    extraPrefsFirefox: {
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
      'network.proxy.type': 0,
    },
  });
}

/** A Firefox tab on a blank page; `close()` ends the browser and the server. */
export interface FirefoxPage {
  page: Page;
  /** `firefox/153.7.0`, as the browser reports it. */
  version: string;
  close(): Promise<void>;
}

/**
 * Launch Firefox and open the blank loopback page of `serveBlankPage`, as `openBlankPage` does for Chromium
 * (`crypto.subtle` needs a secure context: a page from 127.0.0.1 is one, `about:blank` is not).
 */
export function openFirefoxPage(): Promise<FirefoxPage> {
  return openOnBlankPage(launchFirefox, async (browser, url) => {
    const version = await browser.version();
    const page = await browser.newPage();
    await page.goto(url);
    return { page, version };
  });
}

/** Chromium and Firefox side by side, launched together; `close()` ends both. */
export interface BothBrowsers {
  chromium: BlankPage;
  firefox: FirefoxPage;
  close(): Promise<void>;
}

/** Open a blank loopback page in Debian's Chromium and in Firefox ESR at once (a failed launch closes the other). */
export async function openBothBrowsers(): Promise<BothBrowsers> {
  const [chromium, firefox] = await Promise.allSettled([openBlankPage(), openFirefoxPage()]);
  if (chromium.status === 'rejected' || firefox.status === 'rejected') {
    await Promise.all([
      chromium.status === 'fulfilled' && chromium.value.close(),
      firefox.status === 'fulfilled' && firefox.value.close(),
    ]);
    throw chromium.status === 'rejected' ? chromium.reason : (firefox as PromiseRejectedResult).reason;
  }
  return {
    chromium: chromium.value,
    firefox: firefox.value,
    close: async () => {
      await Promise.all([chromium.value.close(), firefox.value.close()]);
    },
  };
}
