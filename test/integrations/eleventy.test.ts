// What only Eleventy has: eleventy.after's results (what this run wrote), batched signing, non-HTML outputs,
// --dryrun and --serve.
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_EVENT_KIND } from '@siegel/core';
import { type EleventyEventArgs, siegel } from '@siegel/eleventy';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NSITE_NAMED_KIND } from '../../packages/core/src/manifest/site-manifest.js';
import { bunkerEnv, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { readSiteManifest } from '../support/site-manifest-files.js';
import { ADAPTERS, copyExample, type ExampleProject } from './support/example-project.js';
import { startCommand } from './support/run-command.js';
import { checkPages, signatureProblems } from './support/signed-output.js';

// Timeouts (docs/testing.md): Eleventy builds and --serve: 13 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

const eleventy = ADAPTERS.find((adapter) => adapter.tool === 'eleventy');
if (!eleventy) throw new Error('no eleventy adapter');

let bunker: RunningBunker;
let counter: CountingProxy;
let project: ExampleProject;
const unsigned = new Map<string, string>();

beforeAll(async () => {
  bunker = await startBunker();
  counter = await startCountingProxy(bunker.url);
  project = await copyExample(eleventy as NonNullable<typeof eleventy>, 'eleventy-specific');
  await project.configure(false);
  const reference = await project.build();
  if (reference.code !== 0) throw new Error(reference.output);
  for (const path of ['feed.xml', 'posts.json', 'fragments/card.html'])
    unsigned.set(path, await project.read(path));
  await project.configure({});
  await project.writeEnv(bunkerEnv(bunker, counter.url));
});

afterAll(async () => {
  await project?.remove();
  await counter?.close();
  await bunker?.stop();
});

describe('@siegel/eleventy', () => {
  it('signs concurrent pages in batches: far fewer bunker requests than pages', async () => {
    counter.reset();
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const pages = (await checkPages(project.outDir)).filter((page) => page.hasMain);
    expect(pages.length).toBeGreaterThanOrEqual(25);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
    expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(pages.length);
    expect(counter.signRequests(PAGE_EVENT_KIND)).toBeGreaterThanOrEqual(1);
    expect(counter.signRequests(PAGE_EVENT_KIND)).toBeLessThanOrEqual(Math.ceil(pages.length / 10));
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
  });

  it('leaves the feed (XML), the JSON index and a fragment without <main> untouched', async () => {
    for (const [path, content] of unsigned) expect(await project.read(path), path).toBe(content);
    expect(existsSync(join(project.outDir, 'draft/index.html'))).toBe(false);
  });

  it('signs only what this run wrote (eleventy.after’s results): a stray page in _site stays as it was', async () => {
    // A page in the output directory that Eleventy did not write in this run — left by an earlier build,
    // another tool or a hand copy — is not this build's page: it is neither signed nor counted.
    const stray = join(project.outDir, 'stray/index.html');
    const html = '<!doctype html><title>Stray</title><main><p>Not from this build.</p></main>\n';
    await mkdir(join(project.outDir, 'stray'), { recursive: true });
    await writeFile(stray, html);
    await rm(join(project.dir, '.sign-cache.json'), { force: true });
    try {
      counter.reset();
      const result = await project.build();
      expect(result.code, result.output).toBe(0);
      expect(await readFile(stray, 'utf8')).toBe(html);
      const pages = (await checkPages(project.outDir)).filter((page) => page.hasMain);
      const written = pages.filter((page) => page.path !== 'stray/index.html');
      expect(written.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
      expect(counter.signedEvents(PAGE_EVENT_KIND)).toBe(written.length);
      // The manifest lists the stray page as a file of the output (by its bytes), with no event.
      expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
      const { manifest } = await readSiteManifest(project.outDir);
      expect(manifest.files.has('/stray/index.html')).toBe(true);
      expect(manifest.pages.has('/stray/index.html')).toBe(false);
      expect(result.output).toContain(`Siegel: ${written.length} signed, 0 unchanged`);
    } finally {
      await rm(join(project.outDir, 'stray'), { recursive: true, force: true });
    }
  });

  it('eleventy --dryrun writes nothing, so Siegel signs nothing (and says so)', async () => {
    // With --dryrun Eleventy renders every page (its transforms run) but writes none: `results` is empty.
    // A transform noting pages would have signed the previous build's files on disk.
    await rm(join(project.dir, '.sign-cache.json'), { force: true });
    const before = new Map((await checkPages(project.outDir)).map((page) => [page.path, page.raw]));
    counter.reset();
    const result = await project.build({}, { args: ['--dryrun'] });
    expect(result.code, result.output).toBe(0);
    expect(counter.signRequests()).toBe(0);
    expect(result.output).toContain('Siegel: 0 signed, 0 unchanged, 0 skipped (no <main>), 0 failed');
    expect(result.output).toContain(`Siegel: no HTML page found in \`${project.outDir}\`, nothing signed`);
    for (const page of await checkPages(project.outDir))
      expect(page.raw, page.path).toBe(before.get(page.path));
  });

  it('is off in --serve unless enabled', async () => {
    const port = await freePort();
    counter.reset();
    const server = startCommand(
      process.execPath,
      [eleventy?.command().script ?? '', '--serve', '--port', String(port)],
      { cwd: project.dir, env: { ...process.env, NO_COLOR: '1' } },
    );
    try {
      // Eleventy prints "Wrote N files" once the build's `eleventy.after` handlers (the plugin's signing,
      // were it on) have finished: nothing is left to wait for after it.
      await eventually(() => /Wrote \d+ files/.test(server.output), 30_000).catch(() => {
        throw new Error(`eleventy --serve did not finish its first build:\n${server.output}`);
      });
    } finally {
      await server.stop();
    }
    expect(counter.signRequests()).toBe(0);
    const about = (await checkPages(project.outDir)).find((page) => page.path === 'about/index.html');
    expect(about?.hasMain).toBe(true);
    expect(about?.block, server.output).toBeUndefined();
  });

  it('signs the pages as written: a transform registered after the plugin is kept, and the signatures hold', async () => {
    await project.configureSource((source) =>
      source.replace(
        /(eleventyConfig\.addPlugin\(siegel[^)]*\);)/,
        `$1
  eleventyConfig.addTransform('late-minify', function (content) {
    return String(this.page.outputPath).endsWith('.html') ? content.replace(/\\n\\s+/g, '\\n') : content;
  });`,
      ),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const pages = (await checkPages(project.outDir)).filter((page) => page.hasMain);
    const about = pages.find((page) => page.path === 'about/index.html');
    expect(about?.raw).not.toMatch(/\n\s+</);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
  });

  it('replaces each page atomically in eleventy.after (temp file + rename), leaving no temp file', async () => {
    // A hard link taken before signing shows how the page was written: an in-place write would change
    // what the link sees too; a rename puts a new file in the page's place and the link keeps the old one.
    const dir = await mkdtemp(join(tmpdir(), 'siegel-eleventy-atomic-'));
    try {
      const outDir = join(dir, '_site');
      await mkdir(join(outDir, 'about'), { recursive: true });
      const page = join(outDir, 'about/index.html');
      const html =
        '<!doctype html><html><head><title>About</title></head><body><main><p>Hi</p></main></body></html>\n';
      await writeFile(page, html);
      await link(page, join(dir, 'before-signing.html'));

      const handlers = new Map<string, (args: EleventyEventArgs) => unknown>();
      siegel(
        { versionCheck: () => {}, on: (event, callback) => void handlers.set(event, callback) },
        {
          site: 'https://atomic.siegel.invalid',
          cacheFile: join(dir, '.sign-cache.json'),
          bunkerUrl: bunker.url,
          bunkerApiToken: bunker.apiToken,
          bunkerKeyName: bunker.keyName,
        },
      );
      await handlers.get('eleventy.after')?.({
        directories: { output: outDir },
        runMode: 'build',
        outputMode: 'fs',
        results: [{ outputPath: page }],
      });

      const [signed] = (await checkPages(outDir)).filter((check) => check.path === 'about/index.html');
      expect(signed && signatureProblems(signed, bunker.pubkey)).toEqual([]);
      expect(await readFile(join(dir, 'before-signing.html'), 'utf8')).toBe(html);
      expect((await readdir(outDir, { recursive: true })).filter((name) => name.endsWith('.tmp'))).toEqual(
        [],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
