// Issue 38, acceptance 4: the reader's mark in Chromium. The Eleventy example, built for real with its
// `mark` option (and a file server named), is checked by core's verifySite (directory and URL) and served on
// loopback at its public address; the mark renders in the layout's footer, shows the npub the block names as
// a claim, links to the page's verify page, to `{server}/verify?url={this page}` and to the extension's
// README, states no verdict (words, symbols, accessible names, colours), leaves <main> as signed, shows
// hostile values as text, and a page without a <siegel-mark> gets one at the end of <body>.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readSignatureBlock, verifySite } from '@siegel/core';
import { npubEncode } from 'nostr-tools/nip19';
import { getPublicKey } from 'nostr-tools/pure';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADAPTERS,
  copyExample,
  type ExampleProject,
  REPO_ROOT,
} from '../integrations/support/example-project.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

// Timeouts (docs/testing.md): one Eleventy build (13 s among parallel files) and a few tabs.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const KEY = '4'.repeat(64);
const PUBKEY = getPublicKey(Uint8Array.from(Buffer.from(KEY, 'hex')));
const SITE = 'https://eleventy-example.siegel.invalid';
// Not under `.invalid`: the host is shown, and the scan for verdict words would find "invalid" in it.
const SERVER = 'https://files.example.org';
/** Words and signs of a verdict the mark must never state by itself. */
const VERDICT = /verified|valid|authentic|[✓✔☑✅]/i;
const HOSTILE = '<img src=x onerror="window.pwned=1">';

let project: ExampleProject;
let server: StaticServer;
let chromium: LaunchedChromium;

beforeAll(async () => {
  const eleventy = ADAPTERS.find((adapter) => adapter.tool === 'eleventy');
  if (!eleventy) throw new Error('no eleventy adapter');
  project = await copyExample(eleventy, 'mark');
  await project.configure({ mark: { server: SERVER } });
  await project.writeEnv({ SIEGEL_SECRET_KEY: KEY });
  const built = await project.build();
  if (built.code !== 0) throw new Error(built.output);
  server = await serveDirectory(project.outDir);
  chromium = await launchChromium();
  // The site at its public address, answered from loopback; nothing else leaves the browser.
  const local = new URL(server.url).origin;
  await chromium.context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== SITE) return route.abort();
    const response = await fetch(`${local}${url.pathname}${url.search}`);
    await route.fulfill({
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      body: Buffer.from(await response.arrayBuffer()),
    });
  });
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await project?.remove();
});

/** Open `path` of the site and wait for the mark's rendered section. */
async function open(path: string): Promise<Page> {
  const tab = await chromium.context.newPage();
  await tab.goto(`${SITE}${path}`);
  await tab.locator('siegel-mark section').first().waitFor({ timeout: 10_000 });
  return tab;
}

/** Every colour the mark's host and its shadow tree compute, as `rgb(…)`/`rgba(…)` strings. */
function markColours(tab: Page): Promise<string[]> {
  return tab.evaluate(() => {
    const host = document.querySelector('siegel-mark') as HTMLElement;
    const nodes = [host, ...Array.from(host.shadowRoot?.querySelectorAll('*') ?? [])];
    const props = ['color', 'background-color', 'border-top-color', 'outline-color', 'text-decoration-color'];
    return nodes.flatMap((node) => props.map((prop) => getComputedStyle(node).getPropertyValue(prop)));
  });
}

/** True for a visible colour whose hue is red or green (a verdict's traffic light), not grey or blue. */
function isRedOrGreen(colour: string): boolean {
  const [r = 0, g = 0, b = 0, a = 1] = (colour.match(/[\d.]+/g) ?? []).map(Number);
  if (a === 0) return false;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === 0 || (max - min) / max < 0.25) return false;
  const hue =
    max === r
      ? (60 * ((g - b) / (max - min)) + 360) % 360
      : max === g
        ? 60 * ((b - r) / (max - min)) + 120
        : 60 * ((r - g) / (max - min)) + 240;
  return hue <= 25 || hue >= 335 || (hue >= 75 && hue <= 165);
}

describe('the mark on a signed example page', () => {
  it('the example with the mark verifies valid: directory and URL, with the script in the manifest', async () => {
    const dir = await verifySite(project.outDir, { site: SITE, pubkey: PUBKEY });
    expect(dir.valid).toBeGreaterThanOrEqual(25);
    expect(dir.invalid).toBe(0);
    const codes = new Set(dir.pages.flatMap((page) => page.problems.map((problem) => problem.code)));
    expect([...codes]).toEqual(['manifest.unchecked']);
    const manifest = JSON.parse(await readFile(join(project.outDir, 'verify/manifest.json'), 'utf8')) as {
      tags: string[][];
    };
    expect(manifest.tags.some((tag) => tag[0] === 'path' && tag[1] === '/verify/siegel-mark.js')).toBe(true);
    const url = await verifySite(`${server.url}about/`, { pubkey: PUBKEY, maxPages: 1 });
    expect(url.pages.map((page) => [page.verdict, page.problems.map((p) => p.code).sort()])).toEqual([
      ['valid', ['address.preview', 'manifest.unchecked']],
    ]);
  });

  it('shows the npub as a claim and links to the verify page, the server and the extension', async () => {
    const html = await project.read('about/index.html');
    const block = readSignatureBlock(html);
    expect(block?.pubkey).toBe(PUBKEY);
    const tab = await open('/about/');
    try {
      expect(await tab.locator('siegel-mark').count()).toBe(1);
      expect(await tab.locator('footer siegel-mark').count()).toBe(1);
      const mark = tab.locator('siegel-mark section');
      const text = (await mark.innerText()).replace(/\s+/g, ' ');
      expect(text).toContain('Check who signed this page');
      expect(text).toContain(`The page names its signer: ${npubEncode(PUBKEY)} — a claim`);
      const links = await mark
        .locator('a')
        .evaluateAll((anchors) =>
          anchors.map((a) => [(a as HTMLAnchorElement).textContent, (a as HTMLAnchorElement).href]),
        );
      const repository = JSON.parse(await readFile(join(REPO_ROOT, 'packages/core/package.json'), 'utf8'))
        .repository.url.replace(/^git\+/, '')
        .replace(/\.git$/, '');
      expect(links).toEqual([
        ['The page’s verify page', block?.verifyUrl],
        ['Check it on files.example.org', `${SERVER}/verify?url=${encodeURIComponent(`${SITE}/about/`)}`],
        ['The Siegel browser extension', `${repository}/tree/main/packages/extension#readme`],
      ]);
      expect(block?.verifyUrl).toBe(`${SITE}/verify/${block?.eventId}`);
    } finally {
      await tab.close();
    }
  });

  it('states no verdict: no such word or sign in its text or accessible names, no red or green', async () => {
    const tab = await open('/about/');
    try {
      const mark = tab.locator('siegel-mark section');
      expect(await mark.innerText()).not.toMatch(VERDICT);
      // Roles, names and text; not the links' addresses (the example's own host ends in `.invalid`).
      const aria = (await mark.ariaSnapshot())
        .split('\n')
        .filter((line) => !line.trim().startsWith('- /url:'))
        .join('\n');
      expect(aria).toContain('region "Check who signed this page"');
      expect(aria).toContain('link "The Siegel browser extension"');
      expect(aria).not.toMatch(VERDICT);
      const colours = await markColours(tab);
      expect(colours.length).toBeGreaterThan(10);
      expect(colours.filter(isRedOrGreen)).toEqual([]);
      // The checker itself can fail: a green and a red are caught, grey and link blue are not.
      expect(
        ['rgb(0, 128, 0)', 'rgb(200, 30, 30)', 'rgb(51, 51, 51)', 'rgb(0, 0, 238)'].map(isRedOrGreen),
      ).toEqual([true, true, false, false]);
      // <main> is what was signed: the hash of its innerHTML in the live page is the block's.
      const live = await tab.evaluate(async () => {
        const bytes = new TextEncoder().encode(document.querySelector('main')?.innerHTML ?? '');
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
        return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
      });
      expect(live).toBe(readSignatureBlock(await project.read('about/index.html'))?.hash);
    } finally {
      await tab.close();
    }
  });

  it('shows a hostile signer and attributes as text, links nothing that is not http(s), runs nothing', async () => {
    const about = await project.read('about/index.html');
    const hostile = about
      .replace(
        /(<meta name="nostr:pubkey" content=")[0-9a-f]{64}/,
        `$1${HOSTILE.replace(/"/g, '&quot;').replace(/</g, '&lt;')}`,
      )
      .replace(
        '<siegel-mark></siegel-mark>',
        '<siegel-mark server="javascript:window.pwned=2" extension="&quot;&gt;&lt;img src=x onerror=window.pwned=3&gt;"></siegel-mark>',
      );
    expect(hostile).not.toBe(about);
    await writeFile(join(project.outDir, 'hostile.html'), hostile);
    const tab = await open('/hostile.html');
    try {
      const mark = tab.locator('siegel-mark section');
      expect(await mark.locator('code').textContent()).toBe(HOSTILE);
      expect(await tab.locator('siegel-mark img').count()).toBe(0);
      const hrefs = await mark
        .locator('a')
        .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      expect(hrefs).toEqual([readSignatureBlock(about)?.verifyUrl]);
      expect(await tab.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    } finally {
      await tab.close();
    }
  });

  it('a page without a <siegel-mark> gets one at the end of <body>', async () => {
    const about = await project.read('about/index.html');
    await writeFile(join(project.outDir, 'bare.html'), about.replace('<siegel-mark></siegel-mark>', ''));
    const tab = await open('/bare.html');
    try {
      expect(await tab.locator('siegel-mark').count()).toBe(1);
      expect(await tab.evaluate(() => document.body.lastElementChild?.tagName)).toBe('SIEGEL-MARK');
      expect(await tab.locator('main siegel-mark').count()).toBe(0);
    } finally {
      await tab.close();
    }
  });
});
