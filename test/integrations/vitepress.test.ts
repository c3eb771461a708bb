// A real VitePress 1.6 site (examples/vitepress-site) built with `vitepress build docs`, signing against a
// real bunker process through a counting proxy. VitePress renders its pages only after its Vite builds, so
// `@siegel/vite` must sign in VitePress's `buildEnd`, with `.env` and the cache from the project root
// (where package.json is), not from the VitePress root `docs/`.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PAGE_EVENT_KIND } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NSITE_NAMED_KIND } from '../../packages/core/src/manifest/site-manifest.js';
import { bunkerEnv, type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { manifestFilesOf, readSiteManifest } from '../support/site-manifest-files.js';
import {
  type BuildResult,
  copyExample,
  type ExampleProject,
  VITEPRESS_ADAPTER,
} from './support/example-project.js';
import { checkPages, runSiegelCli, signatureProblems } from './support/signed-output.js';
import { readVerifyVerdict } from './support/verify-in-chromium.js';

// Timeouts (docs/testing.md): a VitePress build per test: 30 s among parallel files
vi.setConfig({ testTimeout: 120_000 });

let bunker: RunningBunker;
let counter: CountingProxy;
let project: ExampleProject;

beforeAll(async () => {
  bunker = await useBunker();
  counter = await startCountingProxy(bunker.url);
  project = await copyExample(VITEPRESS_ADAPTER);
  await project.writeEnv(bunkerEnv(bunker, counter.url));
});

afterAll(async () => {
  await project?.remove();
  await counter?.close();
  await bunker?.stop();
});

const expectBuildOk = (result: BuildResult) => {
  if (result.code !== 0) throw new Error(`build failed (${result.code}):\n${result.output}`);
};

/** Summary lines: one per signing run (core's summary through VitePress's logger, with the plugin's prefix). */
const signingRuns = (output: string) =>
  output.split('\n').filter((line) => /\[@siegel\/vite\] Siegel: \d+ signed/.test(line)).length;

/** The pages VitePress renders from the example's four Markdown files (cleanUrls), and its 404 page. */
const PAGES = ['about.html', 'changelog.html', 'guide/getting-started.html', 'index.html'];

describe('@siegel/vite in a VitePress build', () => {
  it('signs every rendered page that has a <main>, once; each verifies with `siegel verify`', async () => {
    counter.reset();
    const result = await project.build();
    expectBuildOk(result);
    expect(signingRuns(result.output), result.output).toBe(1);
    expect(result.output).toMatch(/Siegel: 4 signed, 0 unchanged, 1 skipped \(no <main>\), 0 failed/);
    const pages = await checkPages(project.outDir);
    expect(pages.filter((page) => page.hasMain).map((page) => page.path)).toEqual(PAGES);
    expect(pages.flatMap((page) => (page.hasMain ? signatureProblems(page, bunker.pubkey) : []))).toEqual([]);
    // The default theme's 404 page has no <main>: reported as skipped, left as VitePress wrote it.
    expect(pages.find((page) => page.path === '404.html')).toMatchObject({
      hasMain: false,
      block: undefined,
    });
    expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(PAGES.length);
    expect(counter.signRequests(PAGE_EVENT_KIND)).toBe(1);
    // Acceptance 5 of issue 36: the site manifest, signed once, lists every file — the JS chunks the
    // client-side router renders pages from among them — and each page's event.
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    const { verified: manifestVerifies, manifest } = await readSiteManifest(project.outDir);
    expect(manifestVerifies).toBe(true);
    expect(manifest.files).toEqual(await manifestFilesOf(project.outDir));
    expect([...manifest.files.keys()].some((path) => /^\/assets\/.*\.js$/.test(path))).toBe(true);
    for (const page of pages.filter((p) => p.block))
      expect(manifest.pages.get(`/${page.path}`)?.eventId, page.path).toBe(page.block?.eventId);
    expect(existsSync(join(project.dir, '.sign-cache.json'))).toBe(true);
    expect(existsSync(join(project.dir, 'docs/.sign-cache.json'))).toBe(false);

    const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
    expect(verified.code, verified.output).toBe(0);
  });

  it('a sample verify page (of the nested page) says valid in Chromium', async () => {
    const page = (await checkPages(project.outDir)).find((p) => p.path === 'guide/getting-started.html');
    expect(page?.block?.eventId).toBeTruthy();
    const verdict = await readVerifyVerdict(project.outDir, page?.block?.eventId);
    expect(verdict.state, verdict.text).toBe('valid');
  });

  it('a second build, run from inside docs/, re-signs nothing: .env and the cache come from the project root', async () => {
    counter.reset();
    const result = await project.build({}, { cwd: join(project.dir, 'docs'), args: ['build', '.'] });
    expectBuildOk(result);
    expect(result.output).toMatch(/Siegel: 0 signed, 4 unchanged, 1 skipped/);
    expect(counter.signRequests()).toBe(0);
    const pages = await checkPages(project.outDir);
    expect(pages.flatMap((page) => (page.hasMain ? signatureProblems(page, bunker.pubkey) : []))).toEqual([]);
  });

  it('with siegelBuildEnd and the plugin both configured, signs once, after the user’s own buildEnd', async () => {
    await rm(join(project.dir, '.sign-cache.json'));
    // The user's buildEnd runs first and sees the unsigned pages; siegelBuildEnd (verbose, so its run can be
    // told from the plugin's) then signs; the plugin finds the site signed and does nothing.
    await project.configureSource((source) =>
      source
        .replace(
          "import { defineConfig } from 'vitepress';",
          `import { defineConfig } from 'vitepress';
import { siegelBuildEnd } from '@siegel/vite/vitepress';
import { readFileSync, writeFileSync } from 'node:fs';
const signWithSiegel = siegelBuildEnd({ site: 'https://vitepress-example.siegel.invalid', verbose: true });`,
        )
        .replace(
          'cleanUrls: true,',
          `cleanUrls: true,
  async buildEnd(siteConfig) {
    const about = readFileSync(siteConfig.outDir + '/about.html', 'utf8');
    writeFileSync(siteConfig.outDir + '/own-build-end.txt', about.includes('nostr:event') ? 'signed' : 'unsigned');
    await signWithSiegel(siteConfig);
  },`,
        ),
    );
    counter.reset();
    const result = await project.build();
    expectBuildOk(result);
    expect(signingRuns(result.output), result.output).toBe(1);
    expect(result.output).toMatch(/^\s+signed\s+about\.html/m);
    expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(PAGES.length);
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(await project.read('own-build-end.txt')).toBe('unsigned');
    const pages = await checkPages(project.outDir);
    expect(pages.flatMap((page) => (page.hasMain ? signatureProblems(page, bunker.pubkey) : []))).toEqual([]);
  });

  it('without a token in the project root’s .env, fails with `BUNKER_API_TOKEN nicht gesetzt` (a docs/.env is not read)', async () => {
    await project.configure({});
    await project.writeEnv({ ...bunkerEnv(bunker, counter.url), BUNKER_API_TOKEN: undefined });
    await writeFile(join(project.dir, 'docs/.env'), `BUNKER_API_TOKEN=${bunker.apiToken}\n`);
    counter.reset();
    const result = await project.build();
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toMatch(/^BUNKER_API_TOKEN nicht gesetzt\r?$/m);
    expect(counter.signRequests()).toBe(0);
    for (const page of await checkPages(project.outDir)) expect(page.block, page.path).toBeUndefined();
    expect(await readFile(join(project.dir, 'docs/.env'), 'utf8')).toContain(bunker.apiToken);
  });
});
