// Issue 23, acceptance 2 (the hand table, through every verifier): each wrapper, attribute and inline style
// of packages/core/test/support/not-shown-cases.ts is refused at signing with `page.not_shown`, and a signed
// page tampered into that form — its <main> and its hash unchanged, only hidden — is not valid, with the
// same code, in `siegel verify DIR --site`, in `siegel verify URL` and on the page's verify page in Debian's
// Chromium. The generated set (Chromium's checkVisibility as the oracle) is test/page-hash/not-shown-chromium.test.ts.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, formatSummary, LocalKeySigner, signSite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NOT_SHOWN, notShownPage } from '../../packages/core/test/support/not-shown-cases.js';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

// Timeouts (docs/testing.md): the not-shown set through every verifier: 17 s among parallel files; with the
// site manifest's relay lookups (issue 36) a verify page takes 3.5–6 s at a load average of 27 (60 s ran out)
vi.setConfig({ testTimeout: 180_000 });

const KEY = '5'.repeat(64);
const quiet = { info: () => {}, warn: () => {} };

interface JsonReport {
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string }> }>;
}

/** The case page `i` with its own words in place of the table's `x`. */
const words = (i: number) => `Case ${i}: these words are signed.`;
const caseHtml = (i: number) =>
  (NOT_SHOWN[i] as [string, string])[1].replace('>x</main>', `>${words(i)}</main>`);
const pageName = (i: number) => `case-${i}.html`;

let root: string;
let dir: string;
let server: StaticServer;
let chromium: LaunchedChromium;
/** Per case page: the event id of the signature it carries. */
const eventIds: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-not-shown-'));
  dir = join(root, 'site');
  await mkdir(dir);
  server = await serveDirectory(dir);
  // Sign each case's words while shown, then hide them the way its case says; the signed head is kept.
  const links = NOT_SHOWN.map((_, i) => `<a href="${pageName(i)}">${i}</a>`).join(' ');
  await writeFile(join(dir, 'index.html'), notShownPage(`<body><nav>${links}</nav><main>Index</main>`));
  for (const [i] of NOT_SHOWN.entries())
    await writeFile(join(dir, pageName(i)), notShownPage(`<body><main>${words(i)}</main>`));
  const summary = await signSite(dir, {
    site: server.url,
    signer: new LocalKeySigner(KEY),
    cacheFile: join(root, 'sign-cache.json'),
    logger: quiet,
    progress: false,
    parseWorkers: 0,
  });
  expect(summary.signed).toBe(NOT_SHOWN.length + 1);
  for (const [i] of NOT_SHOWN.entries()) {
    const signed = await readFile(join(dir, pageName(i)), 'utf8');
    const head = /<head>[\s\S]*<\/head>/.exec(signed)?.[0] as string;
    eventIds[i] = analyzePage(signed).signatureBlock?.eventId as string;
    await writeFile(
      join(dir, pageName(i)),
      caseHtml(i).replace(/<head>[\s\S]*<\/head>/, () => head),
    );
  }
  chromium = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** What every verifier must say of every case. */
const expected = Object.fromEntries(
  NOT_SHOWN.map(([name]) => [name, { verdict: 'invalid', not_shown: true }]),
);

function byCase(report: JsonReport, nameOf: (i: number) => string) {
  return Object.fromEntries(
    NOT_SHOWN.map(([name], i) => {
      const page = report.pages.find((p) => p.page === nameOf(i));
      const codes = page?.problems.map((p) => p.code) ?? [];
      return [
        name,
        { verdict: page?.verdict ?? '(not judged)', not_shown: codes.includes('page.not_shown') },
      ];
    }),
  );
}

describe('not shown ⇒ not signed, not valid — one code in every verifier', () => {
  it('siegel sign refuses every case with page.not_shown, and says so', async () => {
    const fresh = join(root, 'unsigned');
    await mkdir(fresh);
    for (const [i] of NOT_SHOWN.entries()) await writeFile(join(fresh, pageName(i)), caseHtml(i));
    // One page that signs: a run that signs nothing at all is an error of its own (`nothing_signed`).
    await writeFile(
      join(fresh, 'plain.html'),
      '<!doctype html><title>plain</title><main><p>Shown.</p></main>',
    );
    const summary = await signSite(fresh, {
      site: 'https://example.com/',
      signer: new LocalKeySigner(KEY),
      cacheFile: join(root, 'unsigned-cache.json'),
      logger: quiet,
      progress: false,
      parseWorkers: 0,
    });
    expect(summary.refused).toBe(NOT_SHOWN.length);
    expect(Object.fromEntries(summary.pages.map((page) => [page.path, [page.outcome, page.code]]))).toEqual({
      ...Object.fromEntries(NOT_SHOWN.map((_, i) => [pageName(i), ['refused', 'page.not_shown']])),
      'plain.html': ['signed', undefined],
    });
    const lines = formatSummary(summary).split('\n').slice(1);
    expect(lines).toHaveLength(NOT_SHOWN.length);
    for (const line of lines) expect(line).toMatch(/^ {2}refused {2}case-\d+\.html: .* \[page\.not_shown\]$/);
    // Nothing was written into a refused page.
    for (const [i] of NOT_SHOWN.entries())
      expect(await readFile(join(fresh, pageName(i)), 'utf8')).toBe(caseHtml(i));
  });

  it('siegel verify DIR --site and siegel verify URL: invalid, page.not_shown, for every case', async () => {
    const local = await runCli(['verify', dir, '--site', server.url, '--json'], root);
    expect(local.code).toBe(1);
    const localReport = JSON.parse(local.stdout) as JsonReport;
    expect(byCase(localReport, pageName)).toEqual(expected);
    expect(localReport.pages.find((page) => page.page === 'index.html')?.verdict).toBe('valid');
    const remote = await runCli(['verify', server.url, '--json'], root);
    expect(remote.code).toBe(1);
    expect(byCase(JSON.parse(remote.stdout) as JsonReport, (i) => `${server.url}${pageName(i)}`)).toEqual(
      expected,
    );
  });

  it('the verify page in Chromium: invalid, page.not_shown, for every case', async () => {
    const tab = await chromium.context.newPage();
    const seen: Record<string, { verdict: string; not_shown: boolean }> = {};
    for (const [i, [name]] of NOT_SHOWN.entries()) {
      await tab.goto(`${server.url}verify/${eventIds[i]}/`);
      const status = tab.locator('#siegel-status:not([data-state="pending"])');
      await status.waitFor({ timeout: 30_000 });
      const codes = ((await status.getAttribute('data-codes')) ?? '').split(' ');
      seen[name] = {
        verdict: (await status.getAttribute('data-state')) ?? '',
        not_shown: codes.includes('page.not_shown'),
      };
    }
    await tab.close();
    expect(seen).toEqual(expected);
  });
});
