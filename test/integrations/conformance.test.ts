// One conformance suite, run against all three example sites (Astro, Vite, Eleventy): each is built for
// real, signing against a real bunker process through a counting proxy. Builds are reused across the
// assertions that follow each one, in order: unsigned reference → signed → rebuilt → one page edited.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PAGE_EVENT_KIND } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NSITE_NAMED_KIND } from '../../packages/core/src/manifest/site-manifest.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { manifestFilesOf, readSiteManifest } from '../support/site-manifest-files.js';
import { ADAPTERS, type BuildResult, copyExample, type ExampleProject } from './support/example-project.js';
import {
  checkPages,
  listPages,
  runNpmScript,
  runSiegelCli,
  signatureProblems,
} from './support/signed-output.js';
import { readVerifyVerdict } from './support/verify-in-chromium.js';

// Timeouts (docs/testing.md): a generator build per test: 8 s alone, 30 s among parallel files
vi.setConfig({ testTimeout: 120_000 });

let bunker: RunningBunker;
let counter: CountingProxy;

beforeAll(async () => {
  bunker = await startBunker({ keys: [{ name: 'default' }, { name: 'locked', locked: true }] });
  counter = await startCountingProxy(bunker.url);
});

afterAll(async () => {
  await counter?.close();
  await bunker?.stop();
});

const expectBuildOk = (result: BuildResult) => {
  if (result.code !== 0) throw new Error(`build failed (${result.code}):\n${result.output}`);
};

describe.each(ADAPTERS)('$tool example', (adapter) => {
  let project: ExampleProject;
  /** The unsigned build: path → content. */
  const reference = new Map<string, string>();
  let referenceFiles: string[] = [];
  let pagesWithMain = 0;

  const bunkerEnv = (overrides: Record<string, string | undefined> = {}) => ({
    BUNKER_URL: counter.url,
    BUNKER_API_TOKEN: bunker.apiToken,
    BUNKER_KEY_NAME: bunker.keyName,
    ...overrides,
  });

  beforeAll(async () => {
    project = await copyExample(adapter);
    await project.configure(false);
    expectBuildOk(await project.build());
    referenceFiles = await project.listOutput();
    for (const path of referenceFiles) reference.set(path, await project.read(path));
    pagesWithMain = (await checkPages(project.outDir)).filter((page) => page.hasMain).length;
  });

  afterAll(async () => {
    await project?.remove();
  });

  it('the unsigned build has pages with <main> and no signature block', async () => {
    expect(pagesWithMain).toBeGreaterThanOrEqual(4);
    for (const page of await checkPages(project.outDir)) expect(page.block, page.path).toBeUndefined();
  });

  it('dry run reports but writes nothing: no block, no verify page, no cache, no bunker request', async () => {
    await project.configure({ dryRun: true });
    await project.writeEnv(bunkerEnv());
    counter.reset();
    const result = await project.build();
    expectBuildOk(result);
    expect(counter.signRequests()).toBe(0);
    expect(await project.listOutput()).toEqual(referenceFiles);
    for (const path of referenceFiles) expect(await project.read(path), path).toBe(reference.get(path));
    expect(existsSync(join(project.dir, '.sign-cache.json'))).toBe(false);
  });

  it('signs every page with <main>; each verifies; pages without <main> stay unsigned', async () => {
    await project.configure({});
    await project.writeEnv(bunkerEnv());
    counter.reset();
    const result = await project.build();
    expectBuildOk(result);
    const pages = await checkPages(project.outDir);
    const problems = pages
      .filter((page) => page.hasMain)
      .flatMap((page) => signatureProblems(page, bunker.pubkey));
    expect(problems).toEqual([]);
    for (const page of pages.filter((p) => !p.hasMain)) expect(page.block, page.path).toBeUndefined();
    expect(pages.filter((page) => page.block).length).toBe(pagesWithMain);
    expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(pagesWithMain);
    // Acceptance 5 of issue 36: the build's hook signs the site manifest too, once, listing every file of
    // the output with its hash and each signed page with its event.
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    const { verified: manifestVerifies, manifest } = await readSiteManifest(project.outDir);
    expect(manifestVerifies).toBe(true);
    expect(manifest.files).toEqual(await manifestFilesOf(project.outDir));
    for (const page of pages.filter((p) => p.block))
      expect(manifest.pages.get(`/${page.path}`)?.eventId, page.path).toBe(page.block?.eventId);
    expect(existsSync(join(project.dir, '.sign-cache.json'))).toBe(true);

    const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
    expect(verified.code, verified.output).toBe(0);
  });

  it('leaves every byte outside the signature block as the unsigned build wrote it', async () => {
    const signedFiles = await project.listOutput();
    expect(signedFiles.filter((path) => !path.startsWith('verify/'))).toEqual(referenceFiles);
    for (const page of await checkPages(project.outDir)) {
      expect(page.withoutBlock, page.path).toBe(reference.get(page.path));
    }
    for (const path of referenceFiles.filter((p) => !p.endsWith('.html'))) {
      expect(await project.read(path), path).toBe(reference.get(path));
    }
  });

  it('a sample verify page says valid in Chromium', async () => {
    const page = (await checkPages(project.outDir)).find((p) => p.block && p.path.includes('/'));
    expect(page?.block?.eventId).toBeTruthy();
    const verdict = await readVerifyVerdict(project.outDir, page?.block?.eventId);
    expect(verdict.state, verdict.text).toBe('valid');
  });

  it('a second build signs nothing (0 sign requests), yet every page has its block', async () => {
    counter.reset();
    expectBuildOk(await project.build());
    expect(counter.signRequests()).toBe(0);
    const pages = await checkPages(project.outDir);
    expect(
      pages.filter((page) => page.hasMain).flatMap((page) => signatureProblems(page, bunker.pubkey)),
    ).toEqual([]);
  });

  it("the example's `sign` script (the CLI) agrees with the integration: nothing to sign, 0 requests", async () => {
    counter.reset();
    const before = new Map((await checkPages(project.outDir)).map((page) => [page.path, page.raw]));
    const result = await runNpmScript(project.dir, 'sign');
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Siegel: 0 signed, \d+ unchanged/);
    expect(counter.signRequests()).toBe(0);
    for (const page of await checkPages(project.outDir))
      expect(page.raw, page.path).toBe(before.get(page.path));
  });

  it('editing one page signs exactly that page', async () => {
    const before = new Map(
      (await checkPages(project.outDir)).map((page) => [page.path, page.block?.eventId]),
    );
    const file = join(project.dir, adapter.editable.file);
    await writeFile(file, adapter.editable.edit(await readFile(file, 'utf8')));
    counter.reset();
    expectBuildOk(await project.build());
    expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(1);
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    const pages = await checkPages(project.outDir);
    expect(pages.flatMap((page) => (page.hasMain ? signatureProblems(page, bunker.pubkey) : []))).toEqual([]);
    const changed = pages
      .filter((page) => page.block?.eventId !== before.get(page.path))
      .map((page) => page.path);
    expect(changed).toEqual([adapter.editable.page]);
  });

  describe('signing errors fail the build with the exact German message', () => {
    const cases: Array<[string, Record<string, string | undefined>, string]> = [
      ['missing token', { BUNKER_API_TOKEN: undefined }, 'BUNKER_API_TOKEN nicht gesetzt'],
      ['unknown key', { BUNKER_KEY_NAME: 'no-such-key' }, 'Key nicht gefunden'],
      ['locked key', { BUNKER_KEY_NAME: 'locked' }, 'Key ist gesperrt'],
    ];

    it.each(cases)('%s', async (_name, overrides, message) => {
      await rm(join(project.dir, '.sign-cache.json'), { force: true });
      await project.configure({});
      await project.writeEnv(bunkerEnv(overrides));
      const result = await project.build();
      expect(result.code, result.output).not.toBe(0);
      // The German message as a line of its own (after the tool's prefix such as `[11ty] ` or `SiegelError: `).
      expect(result.output).toMatch(new RegExp(`(^|[\\s:\\]])${message}\\r?$`, 'm'));
    });
  });

  it("onError: 'warn' finishes the build unsigned, with a warning", async () => {
    await rm(join(project.dir, '.sign-cache.json'), { force: true });
    await project.configure({ onError: 'warn' });
    await project.writeEnv(bunkerEnv({ BUNKER_KEY_NAME: 'locked' }));
    const result = await project.build();
    expectBuildOk(result);
    expect(result.output).toContain('Key ist gesperrt');
    expect(result.output).toContain("onError: 'warn'");
    const pages = await listPages(project.outDir);
    expect(pages.length).toBeGreaterThan(0);
    for (const page of await checkPages(project.outDir)) expect(page.block, page.path).toBeUndefined();
  });
});
