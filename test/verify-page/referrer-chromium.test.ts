// Issue 35, item 4 and acceptance 4: a verify page says which page it checked, and notices a reader who
// came from another page — a forged or copied page can link the genuine verify page of another page, which
// would say "Valid" about that one. In Debian's Chromium, by real link clicks (Chromium sends the Referer):
// from a page of another origin (only the origin is sent, the default policy) and from another page of the
// same site (the full URL), the per-event and the site-wide verify page both show `referrer.other_page`;
// opened directly or from the checked page itself, they do not.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage } from '@siegel/core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { signTestSite } from '../support/sign-test-site.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { pageHtml } from '../support/verdict-cases.js';

// Timeouts (docs/testing.md): a link click and a verify page's check per test: up to 12 s each at a load of
// 18 on 2 cores (4 s idle); the verdict itself waits at most 20 s.
vi.setConfig({ testTimeout: 60_000 });

let root: string;
/** The signed site. */
let site: StaticServer;
/** Another origin: where a forged copy would be. */
let elsewhere: StaticServer;
let chromium: LaunchedChromium;
let eventId: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-referrer-'));
  const dir = join(root, 'site');
  const other = join(root, 'other');
  site = await serveDirectory(dir);
  elsewhere = await serveDirectory(other);
  await mkdir(dir, { recursive: true });
  await mkdir(other, { recursive: true });
  await writeFile(join(dir, 'x.html'), pageHtml('X', 'The signed page.'));
  await signTestSite(dir, site.url, '5'.repeat(64), join(root, 'sign-cache.json'));
  const signed = await readFile(join(dir, 'x.html'), 'utf8');
  eventId = analyzePage(signed).signatureBlock?.eventId as string;
  // Links to both verify pages, outside `<main>` (the signature stays valid): on the signed page itself,
  // on another page of the same site, and on a page of another origin.
  const links = `<a id="event" href="${site.url}verify/${eventId}/">check</a> <a id="lookup" href="${site.url}verify/#${eventId}">look up</a>`;
  // Links added after signing (outside <main>): the signature holds, the manifest's hash of the page does
  // not (issue 36: `manifest.bytes_differ`, a warning, beside `manifest.unchecked`: no verifier relay here).
  await writeFile(join(dir, 'x.html'), signed.replace('<nav></nav>', `<nav>${links}</nav>`));
  expect(analyzePage(await readFile(join(dir, 'x.html'), 'utf8')).hash).toBe(analyzePage(signed).hash);
  await writeFile(join(dir, 'other.html'), pageHtml('Other', 'Another page of the site.', links));
  await writeFile(join(other, 'copy.html'), pageHtml('X', 'A forged page.', links));
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await elsewhere?.close();
  await site?.close();
  await rm(root, { recursive: true, force: true });
});

interface Seen {
  state: string;
  codes: string[];
  /** `#siegel-checked`'s link. */
  checked: string | null;
  /** `#siegel-referrer`: its `data-referrer`, its text, its link, shown or not. */
  referrer: string | null;
  note: string;
  noteLink: string | null;
  noteShown: boolean;
  /** What Chromium set as `document.referrer` (the test's own check that a Referer was sent). */
  documentReferrer: string;
}

/** The settled verify page in `tab`. */
async function readPage(tab: Page): Promise<Seen> {
  const status = tab.locator('#siegel-status:not([data-state="pending"])');
  await status.waitFor({ timeout: 20_000 });
  const note = tab.locator('#siegel-referrer');
  return {
    state: (await status.getAttribute('data-state')) ?? '',
    codes: ((await status.getAttribute('data-codes')) ?? '').split(' ').filter(Boolean),
    checked: await tab.locator('#siegel-checked-page').getAttribute('href'),
    referrer: await note.getAttribute('data-referrer'),
    note: (await note.textContent()) ?? '',
    noteLink: await note
      .locator('a')
      .getAttribute('href', { timeout: 1000 })
      .catch(() => null),
    noteShown: await note.isVisible(),
    documentReferrer: await tab.evaluate(() => document.referrer),
  };
}

/** Open `from`, click the link `#which` to a verify page, and read it. */
async function clickThrough(from: string, which: 'event' | 'lookup'): Promise<Seen> {
  const tab = await chromium.context.newPage();
  try {
    await tab.goto(from);
    await Promise.all([tab.waitForURL(/\/verify\//), tab.click(`#${which}`)]);
    return await readPage(tab);
  } finally {
    await tab.close();
  }
}

const checkedUrl = () => `${site.url}x.html`;

describe('a verify page says which page it checked, and whether the reader came from it', () => {
  for (const which of ['event', 'lookup'] as const) {
    it(`${which} verify page, from a page of another origin: the warning, with the page checked linked`, async () => {
      const seen = await clickThrough(`${elsewhere.url}copy.html`, which);
      // Chromium sent only the origin (strict-origin-when-cross-origin): compared by origin.
      expect(seen.documentReferrer).toBe(elsewhere.url);
      expect(seen).toMatchObject({
        state: 'valid',
        codes: ['manifest.unchecked', 'manifest.bytes_differ', 'referrer.other_page'],
        checked: checkedUrl(),
        referrer: 'other',
        noteLink: checkedUrl(),
        noteShown: true,
      });
      expect(seen.note).toMatch(/^This is not the page you came from\. You came from /);
      expect(seen.note).toContain(elsewhere.url);
    });

    it(`${which} verify page, from another page of the same site: the warning`, async () => {
      const seen = await clickThrough(`${site.url}other.html`, which);
      expect(seen.documentReferrer).toBe(`${site.url}other.html`);
      expect(seen).toMatchObject({
        state: 'valid',
        codes: ['manifest.unchecked', 'manifest.bytes_differ', 'referrer.other_page'],
        referrer: 'other',
        noteLink: checkedUrl(),
        noteShown: true,
      });
      expect(seen.note).toContain('This is not the page you came from');
    });

    it(`${which} verify page, from the checked page itself: no warning`, async () => {
      const seen = await clickThrough(checkedUrl(), which);
      expect(seen.documentReferrer).toBe(checkedUrl());
      expect(seen).toMatchObject({
        state: 'valid',
        codes: ['manifest.unchecked', 'manifest.bytes_differ'],
        referrer: 'same',
        noteShown: false,
      });
      expect(seen.note).toBe('');
    });

    it(`${which} verify page, opened directly: no warning; it asks the reader to compare the address shown`, async () => {
      const tab = await chromium.context.newPage();
      await tab.goto(which === 'event' ? `${site.url}verify/${eventId}/` : `${site.url}verify/#${eventId}`);
      const seen = await readPage(tab);
      await tab.close();
      expect(seen).toMatchObject({
        state: 'valid',
        codes: ['manifest.unchecked', 'manifest.bytes_differ'],
        checked: checkedUrl(),
        referrer: 'none',
        documentReferrer: '',
        noteLink: checkedUrl(),
        noteShown: true,
      });
      expect(seen.note).toMatch(/^Your browser did not say which page you came from: compare/);
      expect(seen.note).not.toContain('This is not the page you came from');
    });
  }
});
