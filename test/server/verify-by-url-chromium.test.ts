// Issue 38, acceptance 3: the verify-by-URL page (`/verify?url=`) in Debian's Chromium shows the facts —
// the verdict, the signer's npub and NIP-05 name with its state, when, what "valid" covers, that the server
// judged what it received and the extension judges what the reader sees, the signed content rendered and as
// text — and escapes everything the fetched page and the relays supply: a title, a NIP-05 name and content
// made of `<script>` and `<img onerror>` run nothing, and the framed content loads nothing.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { describeCoverage, LocalKeySigner, signSite } from '@siegel/core';
import { npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BASE_URL, makeTestApp } from '../../server/test/test-app.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type RunningRelay, sendEvent, startRelay } from '../support/relay-process.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

// Timeouts (docs/testing.md): one check of one page and one page load in the shared Chromium.
vi.setConfig({ testTimeout: 60_000 });

const KEY = '8'.repeat(64);
/** Each hostile string sets `window.pwned` if it ever runs. */
const TITLE = `<script>window.pwned='title'</script><img src=x onerror="window.pwned='title-img'">`;
const NIP05 = `<img src=x onerror="window.pwned='nip05'">@example.com`;

let root: string;
let site: StaticServer;
let relay: RunningRelay;
let app: Awaited<ReturnType<typeof makeTestApp>>;
let http: ServerType;
let appUrl: string;
let chromium: LaunchedChromium;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-verify-by-url-chromium-'));
  const dir = join(root, 'site');
  await mkdir(dir);
  site = await serveDirectory(dir);
  // The title is text in <title> (RCDATA); <main> carries a script, an image with onerror, an image and a
  // stylesheet from the site (a beacon: any load of it is counted), and a javascript: link.
  await writeFile(
    join(dir, 'hostile.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${TITLE}</title></head><body>
<main><p>Signed words.</p><script>window.pwned='content'</script><img src="x" onerror="window.pwned='img'">
<img src="${site.url}beacon.png"><link rel="stylesheet" href="${site.url}beacon.css">
<a href="javascript:window.pwned='link'">a link</a><p>&lt;script&gt; as text</p></main></body></html>
`,
  );
  await signSite(dir, {
    site: site.url,
    signer: new LocalKeySigner(KEY),
    cacheFile: join(root, 'sign-cache.json'),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  relay = await startRelay();
  const profile = { kind: 0, created_at: 1_700_000_000, tags: [], content: JSON.stringify({ nip05: NIP05 }) };
  await sendEvent(relay.url, finalizeEvent(profile, Buffer.from(KEY, 'hex')));
  app = await makeTestApp({ connectPolicy: { refuse: () => undefined }, verifyRelays: [relay.url] });
  http = serve({ fetch: app.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => http.once('listening', resolve));
  appUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  await app?.close();
  await relay?.stop();
  await site?.close();
  await rm(root, { recursive: true, force: true });
});

describe('/verify?url= in Chromium', () => {
  it('shows the facts, and runs and loads nothing the page or the relays supplied', async () => {
    const tab = await chromium.context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    tab.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    const pageUrl = `${site.url}hostile.html`;
    // The server's own check first (it reads the stylesheets a page loads, for the site manifest); the page
    // below is answered from its cache, so whatever reaches the site after this came from the browser.
    const api = await app.app.request(`/api/verify-page?url=${encodeURIComponent(pageUrl)}`);
    expect(api.status).toBe(200);
    const beacons = () => site.requests.filter((path) => path.startsWith('/beacon'));
    const fetchedByServer = beacons();
    const response = await tab.goto(`${appUrl}/verify?url=${encodeURIComponent(pageUrl)}`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');

    // The facts.
    expect(await tab.getAttribute('#result', 'data-verdict')).toBe('valid');
    expect(await tab.textContent('.verdict')).toMatch(/^✓ Valid/);
    expect(await tab.textContent('#result-url')).toBe(pageUrl);
    expect(await tab.textContent('#result-title')).toBe(TITLE);
    const npub = npubEncode(getPublicKey(Buffer.from(KEY, 'hex')));
    expect(await tab.textContent('#result-npub')).toBe(npub);
    const nip05 = (await tab.textContent('#result-nip05')) ?? '';
    expect(nip05).toContain(NIP05);
    expect(nip05).toMatch(/not confirmed/);
    expect(await tab.textContent('#result-signed-at')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(await tab.textContent('#coverage')).toBe(describeCoverage());
    const received = (await tab.textContent('#received')) ?? '';
    expect(received).toContain(`This is what the server ${BASE_URL} received`);
    expect(received).toMatch(/A site can tell this server apart from your browser/);
    expect(received).toMatch(/Siegel browser extension/);
    expect(await tab.getAttribute('#received a', 'href')).toMatch(/packages\/extension/);
    const text = (await tab.textContent('#content-text')) ?? '';
    expect(text).toContain('Signed words.');
    expect(text).toContain('<script> as text');
    expect(await tab.textContent('#content-html')).toContain("<script>window.pwned='content'</script>");

    // The frame: an empty sandbox, its document under a CSP that allows no network.
    const frame = tab.locator('#content-frame');
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await frame.getAttribute('srcdoc')).toMatch(
      /^<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none';/,
    );
    const framed = tab.frames().find((f) => f !== tab.mainFrame());
    expect(await framed?.evaluate(() => document.body.textContent)).toContain('Signed words.');

    // Nothing ran, in the page or in the frame; nothing was loaded; no hostile element in the page itself.
    await tab.waitForTimeout(500);
    expect(await tab.evaluate(() => (window as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await framed?.evaluate(() => (window as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await tab.evaluate(() => document.querySelectorAll('script, img').length)).toBe(0);
    expect(beacons()).toEqual(fetchedByServer);
    expect(fetchedByServer).not.toContain('/beacon.png');
    expect(problems).toEqual([]);
  });
});
