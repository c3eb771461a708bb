// Issue 38, acceptance 1: verify by URL (`GET /api/verify-page?url=`, `GET /verify?url=`) gives the same
// verdict and problem codes as `siegel verify <url>` (core's `verifySite`) on every case of the verdict table
// (test/support/verdict-cases.ts) and on a not-shown, an encoding and an address fixture — each served on
// loopback, which the server reaches only through the test's address policy.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner, signSite, verifySite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NOT_SHOWN, notShownPage } from '../../packages/core/test/support/not-shown-cases.js';
import { makeTestApp } from '../../server/test/test-app.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { buildCaseSite, type CaseSite, pageHtml, VERDICT_CASES } from '../support/verdict-cases.js';

// Timeouts (docs/testing.md): each case is checked twice (the server, the CLI's verifySite), each a page,
// its event file and manifest from loopback: about 0.3 s each alone, a few seconds among parallel files.
vi.setConfig({ testTimeout: 180_000 });

/** Reaches the loopback fixtures: every address allowed (the refusal tests use the default policy). */
const ANY_ADDRESS = { refuse: () => undefined };

let root: string;
let caseServer: StaticServer;
let relay: RunningRelay;
let cases: CaseSite;
let fixtures: StaticServer;
let app: Awaited<ReturnType<typeof makeTestApp>>;

/** verdict and codes, as the server's JSON answer for `url` has them. */
async function byServer(url: string): Promise<string[]> {
  const response = await app.app.request(`/api/verify-page?url=${encodeURIComponent(url)}`);
  const body = (await response.json()) as { verdict: string; problems: Array<{ code: string }> };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return [body.verdict, ...body.problems.map((problem) => problem.code)];
}

/** verdict and codes, as `siegel verify <url>` judges the one page. */
async function byCli(url: string): Promise<string[]> {
  const report = await verifySite(url, { maxPages: 1, checkCloaking: true });
  const page = report.pages[0];
  return page ? [page.verdict, ...page.problems.map((problem) => problem.code)] : ['(not judged)'];
}

/** The fixture pages beside the table: name → how it is tampered after signing (bytes outside <main>). */
const HIDDEN = [0, 7, 9].map((i) => NOT_SHOWN[i] as [string, string]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-verify-by-url-'));
  relay = await startRelay();
  caseServer = await serveDirectory(join(root, 'cases'));
  cases = await buildCaseSite(join(root, 'cases'), caseServer.url, relay.url);

  // Not shown, encoding, address: one small site signed for `fixtures`.
  const dir = join(root, 'fixtures');
  await mkdir(dir, { recursive: true });
  fixtures = await serveDirectory(dir, {
    // A charset in the header wins over the page's own <meta>: cp1252.html is served without one.
    contentTypes: { 'http-latin1.html': 'text/html; charset=iso-8859-1', 'cp1252.html': 'text/html' },
  });
  const words = 'Grüße aus Köln — 3 × 4 €';
  for (const name of ['shown.html', 'http-latin1.html', 'cp1252.html'])
    await writeFile(join(dir, name), pageHtml(name, words));
  for (const [i] of HIDDEN.entries())
    await writeFile(join(dir, `hidden-${i}.html`), notShownPage(`<body><main>case ${i}</main>`));
  await signSite(dir, {
    site: fixtures.url,
    signer: new LocalKeySigner('6'.repeat(64)),
    cacheFile: join(root, 'sign-cache.json'),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  const edit = async (name: string, change: (html: string) => string) =>
    writeFile(join(dir, name), change(await readFile(join(dir, name), 'utf8')));
  await edit('cp1252.html', (html) =>
    html.replace(
      '<meta charset="utf-8">',
      '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
    ),
  );
  for (const [i, [, hidden]] of HIDDEN.entries())
    await edit(`hidden-${i}.html`, (signed) => {
      const head = /<head>[\s\S]*<\/head>/.exec(signed)?.[0] as string;
      return hidden.replace('>x</main>', `>case ${i}</main>`).replace(/<head>[\s\S]*<\/head>/, () => head);
    });

  // The address fixture: the signed site, byte for byte, under /copy/ of its own origin.
  await cp(dir, join(root, 'copy'), { recursive: true });
  await cp(join(root, 'copy'), join(dir, 'copy'), { recursive: true });

  app = await makeTestApp({
    connectPolicy: ANY_ADDRESS,
    verifyUrl: { rateLimitPerMinute: 10_000, hostRateLimitPerMinute: 10_000, cacheMs: 0 },
  });
});

afterAll(async () => {
  await app?.close();
  await relay?.stop();
  await caseServer?.close();
  await fixtures?.close();
  await rm(root, { recursive: true, force: true });
});

describe('verify by URL judges as `siegel verify <url>` does', () => {
  it('every case of the verdict table: the table’s verdict and codes, the same as the CLI’s', async () => {
    const seen: Record<string, string[]> = {};
    const cli: Record<string, string[]> = {};
    for (const c of VERDICT_CASES) {
      const url = new URL(c.page, cases.site).href;
      seen[c.page] = await byServer(url);
      cli[c.page] = await byCli(url);
    }
    expect(seen).toEqual(Object.fromEntries(VERDICT_CASES.map((c) => [c.page, [c.verdict, ...c.codes]])));
    expect(seen).toEqual(cli);
  });

  it('the not-shown, encoding and address fixtures: the CLI’s verdict and codes', async () => {
    const urls = [
      ...['shown.html', 'http-latin1.html', 'cp1252.html'].map((name) => new URL(name, fixtures.url).href),
      ...HIDDEN.map((_, i) => new URL(`hidden-${i}.html`, fixtures.url).href),
      // The signed page at a path it was not signed for.
      new URL('copy/shown.html', fixtures.url).href,
    ];
    const seen: Record<string, string[]> = {};
    const cli: Record<string, string[]> = {};
    for (const url of urls) {
      seen[url] = await byServer(url);
      cli[url] = await byCli(url);
    }
    expect(seen).toEqual(cli);
    // Each fixture says what it stands for (so that agreeing on "valid" everywhere cannot pass).
    const codes = (name: string) => seen[new URL(name, fixtures.url).href] ?? [];
    expect(codes('shown.html')[0]).toBe('valid');
    expect(codes('http-latin1.html')).toEqual(expect.arrayContaining(['invalid', 'page.encoding']));
    expect(codes('cp1252.html')).toEqual(expect.arrayContaining(['invalid', 'page.encoding']));
    for (const [i] of HIDDEN.entries())
      expect(codes(`hidden-${i}.html`)).toEqual(expect.arrayContaining(['invalid', 'page.not_shown']));
    expect(codes('copy/shown.html')).toEqual(expect.arrayContaining(['invalid', 'event.url']));
  });

  it('the page `/verify?url=` shows the same verdict and codes as the JSON', async () => {
    for (const c of VERDICT_CASES.filter((v) =>
      ['valid.html', 'edited.html', 'missing.html'].includes(v.page),
    )) {
      const url = new URL(c.page, cases.site).href;
      const response = await app.app.request(`/verify?url=${encodeURIComponent(url)}`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(`data-verdict="${c.verdict}"`);
      expect(html).toContain(`data-codes="${c.codes.join(' ')}"`);
      for (const code of c.codes) expect(html).toContain(`<code class="code">${code}</code>`);
    }
  });
});
