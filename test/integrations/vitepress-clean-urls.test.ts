// Issue 23, acceptance 7: `siegel verify DIR --site …` and URL mode agree on the VitePress example, which
// uses `cleanUrls`: its pages are files `about.html`, linked and served as `/about`. The example is built
// as users build it (`vitepress build docs`, signed by `@siegel/vite` in VitePress's `buildEnd`) for the
// address of a test host that serves `/p` from `p.html` as cleanUrls hosts do; then both modes must find
// every page valid, the same pages, and URL mode must have reached them by their clean links.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSameAddress, normalizeAddress } from '@siegel/core/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { copyExample, type ExampleProject, VITEPRESS_ADAPTER } from './support/example-project.js';
import { checkPages } from './support/signed-output.js';

interface JsonReport {
  ok: boolean;
  valid: number;
  invalid: number;
  notFound: number;
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string }> }>;
}

let project: ExampleProject;
let server: StaticServer;

beforeAll(async () => {
  project = await copyExample(VITEPRESS_ADAPTER, 'vitepress-clean-urls');
  // The host first: the site is signed for its address. It reads the output folder per request.
  server = await serveDirectory(project.outDir, { cleanUrls: true });
  await project.configure({ site: server.url });
  await project.writeEnv({ SIEGEL_SECRET_KEY: '7'.repeat(64) });
  const result = await project.build();
  if (result.code !== 0) throw new Error(`build failed (${result.code}):\n${result.output}`);
  expect(result.output).toMatch(/Siegel: 4 signed, 0 unchanged, 1 skipped \(no <main>\), 0 failed/);
}, 240_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

/** verdict and codes per page, keyed by the page's address in its one normalised form. */
function byAddress(report: JsonReport, addressOf: (page: string) => string): Record<string, string[]> {
  return Object.fromEntries(
    report.pages.map((page) => [
      normalizeAddress(addressOf(page.page)) ?? page.page,
      [page.verdict, ...page.problems.map((problem) => problem.code)],
    ]),
  );
}

describe('the VitePress example with cleanUrls: directory and URL mode agree', () => {
  it('the example itself uses cleanUrls, and links its pages by their clean form', async () => {
    const config = await readFile(join(project.dir, VITEPRESS_ADAPTER.configFile), 'utf8');
    expect(config).toMatch(/^\s*cleanUrls: true,$/m);
    const home = await project.read('index.html');
    expect(home).toContain('href="/about"');
    expect(home).not.toContain('href="/about.html"');
  });

  it('each event’s `url` names the file, which is the clean address by normalizeAddress', async () => {
    const pages = (await checkPages(project.outDir)).filter((page) => page.hasMain);
    expect(pages.map((page) => page.path)).toEqual([
      'about.html',
      'changelog.html',
      'guide/getting-started.html',
      'index.html',
    ]);
    for (const page of pages) {
      const url = page.event?.tags.find((tag) => tag[0] === 'url')?.[1] as string;
      const clean = new URL(page.path.replace(/(index)?\.html$/, ''), server.url).href;
      expect(url, page.path).toBe(new URL(page.path.replace(/(^|\/)index\.html$/, '$1'), server.url).href);
      expect(isSameAddress(url, clean), `${url} ≡ ${clean}`).toBe(true);
    }
  });

  it('siegel verify DIR --site and siegel verify URL: every page valid, the same pages in both', async () => {
    const dir = await runCli(['verify', project.outDir, '--site', server.url, '--json'], project.dir);
    expect(dir.code, dir.stdout + dir.stderr).toBe(0);
    const dirReport = JSON.parse(dir.stdout) as JsonReport;
    const url = await runCli(['verify', server.url, '--json'], project.dir);
    expect(url.code, url.stdout + url.stderr).toBe(0);
    const urlReport = JSON.parse(url.stdout) as JsonReport;

    const fromDir = byAddress(
      dirReport,
      (page) => new URL(page.replace(/(^|\/)index\.html$/, '$1'), server.url).href,
    );
    const fromUrl = byAddress(urlReport, (page) => page);
    // Valid, with no asset problem at the clean addresses; no relay of the verifier's: currency unchecked.
    const valid = ['valid', 'manifest.unchecked'];
    expect(fromDir).toEqual({
      [`${server.url}`]: valid,
      [`${server.url}about`]: valid,
      [`${server.url}changelog`]: valid,
      [`${server.url}guide/getting-started`]: valid,
    });
    expect(fromUrl).toEqual(fromDir);
    expect(urlReport).toMatchObject({ ok: true, valid: 4, invalid: 0, notFound: 0 });
    expect(dirReport).toMatchObject({ ok: true, valid: 4, invalid: 0, notFound: 0 });
    // URL mode reached the pages by their clean links, as a reader does: `/about`, never `/about.html`.
    expect(urlReport.pages.map((page) => new URL(page.page).pathname).sort()).toEqual([
      '/',
      '/about',
      '/changelog',
      '/guide/getting-started',
    ]);
    expect(server.requests).toContain('/about');
    expect(server.requests).not.toContain('/about.html');
  });
});
