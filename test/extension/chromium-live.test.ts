// Issue 37: the browser extension in Debian's Chromium — the live half: what stylesheets and scripts do to
// the signed `<main>` in the reader's tab, which no build-time check can see. Pages signed by `signSite`
// (with their own scripts and stylesheets, so the rule book finds them valid), served on loopback; each
// case reads the tab's state from the action's title, and the popup for what it names.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage } from '@siegel/core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.ts';
import { type ExtensionBrowser, launchWithExtension } from '../support/extension.ts';
import { freePort } from '../support/free-port.ts';
import { type RunningRelay, startRelay } from '../support/relay-process.ts';
import { signTestSite } from '../support/sign-test-site.ts';
import { type StaticServer, serveDirectory } from '../support/static-server.ts';
import { CASE_KEY } from '../support/verdict-cases.ts';

// Timeouts (docs/testing.md): one tab per case, each check about a second; 20 s per case under load.
vi.setConfig({ testTimeout: 45_000, hookTimeout: 90_000 });

/** A signed-site page with `head` in its `<head>` and `main` as its `<main>`'s markup. */
const page = (title: string, main: string, head = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
${head}</head>
<body>
<main>
<h1>${title}</h1>
${main}
</main>
</body>
</html>
`;

let root: string;
let site: StaticServer;
let other: StaticServer;
let cloaking: Server;
let cloakingUrl: string;
/** The signed bytes of cloaked.html (what the extension's own fetch gets). */
let cloakedSigned: string;
let relay: RunningRelay;
let browser: ExtensionBrowser;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-extension-live-'));
  const dir = join(root, 'site');
  const otherDir = join(root, 'other');
  await mkdir(dir, { recursive: true });
  await mkdir(otherDir, { recursive: true });
  relay = await startRelay();
  // Another origin's stylesheet, named at signing (so the rule book finds the page as signed): it hides one
  // paragraph of <main> — which the signed markup does not.
  await writeFile(join(otherDir, 'theme.css'), '#ad-free { display: none; }\n');
  other = await serveDirectory(otherDir);
  const cloakPort = await freePort();
  const files: Record<string, string> = {
    'valid.html': page('Valid', '<p>Nothing happens to this page.</p>'),
    'rewritten.html': page(
      'Rewritten',
      '<p id="claim">The author wrote this.</p>',
      '<script src="rewrite.js" defer></script>\n',
    ),
    'rewrite.js':
      "addEventListener('load', () => { document.getElementById('claim').textContent = 'Someone else wrote this.'; });\n",
    'hidden-main.html': page(
      'Hidden',
      '<p>Nobody sees this.</p>',
      '<link rel="stylesheet" href="hide.css">\n',
    ),
    'hide.css': 'main { display: none; }\n',
    'foreign-css.html': page(
      'Foreign',
      '<p>The first paragraph.</p>\n<p id="ad-free">The paragraph another origin hides.</p>',
      `<link rel="stylesheet" href="${other.url}theme.css">\n`,
    ),
    'details.html': page(
      'Details',
      '<p>Shown.</p>\n<details><summary>More</summary><p>Folded away by the author.</p></details>\n<p hidden>Hidden by the author.</p>',
    ),
    'cloaked.html': page('Cloaked', '<p>What the signer signed.</p>'),
    // Page A runs a classic script (its check hashes what it loads); page B, module-based, preloads the
    // chunk its router renders it from, so B's check hashes every JS chunk of the manifest.
    'spa-a.html': page(
      'Page A',
      '<p>Page A.</p>\n<p><a id="to-b" href="spa-b.html">to B</a></p>',
      '<script src="app.js" defer></script>\n',
    ),
    'spa-b.html': page(
      'Page B',
      '<p>Page B, as signed.</p>',
      '<script src="app.js" defer></script>\n<link rel="modulepreload" href="chunk-b.js">\n',
    ),
    'app.js': `document.addEventListener('click', async (event) => {
  const link = event.target.closest('#to-b');
  if (!link) return;
  event.preventDefault();
  const { render } = await import('./chunk-b.js');
  history.pushState({}, '', link.href);
  document.title = 'Page B';
  document.querySelector('main').innerHTML = render();
});
`,
    'chunk-b.js': "export const render = () => '\\n<h1>Page B</h1>\\n<p>Page B, as signed.</p>\\n';\n",
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  site = await serveDirectory(dir);
  await signTestSite(dir, site.url, CASE_KEY, join(root, 'sign-cache.json'));
  // After signing: the SPA's chunk is changed (a client-side router renders page B from it).
  await writeFile(
    join(dir, 'chunk-b.js'),
    "export const render = () => '\\n<h1>Page B</h1>\\n<p>Page B, rewritten by a changed chunk.</p>\\n';\n",
  );
  // Cloaking: the tab's navigation gets an edited page, the extension's own fetch (no cookies, not a
  // document request) the signed one.
  const signed = await readFile(join(dir, 'cloaked.html'), 'utf8');
  cloakedSigned = signed;
  const edited = signed.replace('What the signer signed.', 'What the reader is shown instead.');
  cloaking = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/cloaked.html') {
      const navigation = request.headers['sec-fetch-dest'] === 'document';
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(navigation ? edited : signed);
      return;
    }
    try {
      const body = await readFile(join(dir, path.slice(1)));
      response
        .writeHead(200, { 'content-type': path.endsWith('.json') ? 'application/json' : 'text/plain' })
        .end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => cloaking.listen(cloakPort, '127.0.0.1', resolve));
  cloakingUrl = `http://127.0.0.1:${(cloaking.address() as AddressInfo).port}/`;
  browser = await launchWithExtension();
  await browser.setRelays([relay.url]);
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await Promise.all([site?.close(), other?.close()]);
  await new Promise((resolve) => (cloaking ? cloaking.close(resolve) : resolve(undefined)));
  if (root) await rm(root, { recursive: true, force: true });
});

/** Open `url` in a new tab; its final state's title and the tab. */
async function open(url: string): Promise<{ title: string; tab: Page }> {
  const tab = await browser.context.newPage();
  await tab.goto(url);
  return { title: await browser.stateOf(tab), tab };
}

/** The popup of `tab` (opened as a page naming the tab). */
async function popupOf(tab: Page): Promise<Page> {
  const popup = await browser.context.newPage();
  await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${await browser.tabIdOf(tab)}`);
  await popup.waitForSelector('body[data-ready="true"]');
  return popup;
}

describe('what the reader’s tab shows', () => {
  it('reads VALID on a page nothing changes', async () => {
    const { title, tab } = await open(`${site.url}valid.html`);
    expect(title).toMatch(/^VALID /);
    await tab.close();
  });

  it('reads VALID with a closed <details> and a hidden attribute inside the signed <main> (the author’s hiding)', async () => {
    const { title, tab } = await open(`${site.url}details.html`);
    expect(title).toMatch(/^VALID /);
    await tab.close();
  });

  it('reads CHANGED when a script rewrites <main> after load, with a readable diff in the popup', async () => {
    const tab = await browser.context.newPage();
    await tab.goto(`${site.url}rewritten.html`);
    await tab.waitForFunction(() => document.getElementById('claim')?.textContent?.startsWith('Someone'));
    const title = await browser.stateOf(tab);
    expect(title).toMatch(/^CHANGED /);
    expect(title).toContain('live.changed');
    const popup = await popupOf(tab);
    const diff = await popup.textContent('#diff');
    expect(diff).toContain('The author wrote this.');
    expect(diff).toContain('Someone else wrote this.');
    await Promise.all([popup.close(), tab.close()]);
  });

  it('is not VALID when a stylesheet hides <main> (live.not_shown)', async () => {
    const { title, tab } = await open(`${site.url}hidden-main.html`);
    expect(title).not.toMatch(/^VALID /);
    expect(title).toContain('live.not_shown');
    await tab.close();
  });

  it('is not VALID when another origin’s stylesheet hides one paragraph of <main>, and the popup names it', async () => {
    const { title, tab } = await open(`${site.url}foreign-css.html`);
    expect(title).not.toMatch(/^VALID /);
    // The rule book finds the page as signed (the stylesheet was named at signing): the tab decides.
    expect(title).toMatch(/^CHANGED /);
    expect(title).toContain('live.hidden_part');
    const popup = await popupOf(tab);
    expect(await popup.textContent('#hidden')).toContain('The paragraph another origin hides.');
    expect(await popup.textContent('#hidden')).not.toContain('The first paragraph.');
    await Promise.all([popup.close(), tab.close()]);
  });

  it('is never VALID when the server answers the extension’s fetch with the signed page and the tab with an edited one', async () => {
    const { title, tab } = await open(`${cloakingUrl}cloaked.html`);
    expect(title).not.toMatch(/^VALID /);
    expect(title).toMatch(/^CHANGED /);
    expect(title).toContain('live.changed');
    await tab.close();
  });

  it('checks again after a client-side navigation, to a page whose JS chunk was changed (not VALID)', async () => {
    const { title, tab } = await open(`${site.url}spa-a.html`);
    expect(title).toMatch(/^VALID /);
    await tab.click('#to-b');
    await tab.waitForURL(/spa-b\.html$/);
    const after = await browser.stateOf(tab, { not: 'VALID' });
    // A new check of page B: its manifest's chunk no longer has the pinned bytes.
    expect(after).toMatch(/^INVALID /);
    expect(after).toContain('asset.changed');
    await tab.close();
  });

  it('saves evidence from the popup: the served bytes and headers without Set-Cookie, the event, the live findings, the verdict', async () => {
    const { title, tab } = await open(`${cloakingUrl}cloaked.html`);
    expect(title).toMatch(/^CHANGED /);
    const popup = await popupOf(tab);
    const [download] = await Promise.all([popup.waitForEvent('download'), popup.click('#evidence')]);
    const file = join(root, 'evidence.json');
    await download.saveAs(file);
    const evidence = JSON.parse(await readFile(file, 'utf8')) as {
      format: string;
      page: { url: string; headers: Record<string, string>; body: string };
      event: { found: { id: string } };
      live: Array<{ code: string }>;
      verdict: { verdict: string; state: string };
    };
    expect(evidence.format).toBe('siegel-evidence/1');
    expect(evidence.page.url).toBe(`${cloakingUrl}cloaked.html`);
    // The extension's own fetch: the signed bytes, not the edited page the tab was shown.
    expect(Buffer.from(evidence.page.body, 'base64').toString('utf8')).toBe(cloakedSigned);
    expect(Object.keys(evidence.page.headers)).toContain('content-type');
    expect(Object.keys(evidence.page.headers)).not.toContain('set-cookie');
    expect(evidence.event.found.id).toBe(analyzePage(cloakedSigned).signatureBlock?.eventId);
    expect(evidence.live.map((problem) => problem.code)).toContain('live.changed');
    expect(evidence.verdict).toMatchObject({ verdict: 'invalid', state: 'CHANGED' });
    // `siegel verify --evidence` re-derives the rule book's codes offline and shows the live ones as observed.
    const held = await runCli(['verify', '--evidence', file, '--json'], root);
    expect(held.stderr).toBe('');
    const report = JSON.parse(held.stdout) as { ok: boolean; observed: { problems?: unknown } };
    expect(report.ok).toBe(true);
    expect(held.stdout).toContain('live.changed');
    // Edited bytes no longer hold.
    const edited = join(root, 'evidence-edited.json');
    const body = Buffer.from(
      cloakedSigned.replace('What the signer signed.', 'What was edited later.'),
    ).toString('base64');
    await writeFile(edited, JSON.stringify({ ...evidence, page: { ...evidence.page, body } }));
    const broken = await runCli(['verify', '--evidence', edited, '--json'], root);
    expect(broken.code).toBe(1);
    expect((JSON.parse(broken.stdout) as { ok: boolean }).ok).toBe(false);
    await Promise.all([popup.close(), tab.close()]);
  });
});
