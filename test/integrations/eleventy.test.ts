// What only Eleventy has: per-page transforms (batched), non-HTML outputs, and --serve.
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EleventyEventArgs, siegel } from '@siegel/eleventy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bunkerEnv, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { freePort } from '../support/free-port.js';
import { ADAPTERS, copyExample, type ExampleProject } from './support/example-project.js';
import { startCommand } from './support/run-command.js';
import { checkPages, signatureProblems } from './support/signed-output.js';

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
    expect(counter.signedEvents()).toBe(pages.length);
    expect(counter.signRequests()).toBeGreaterThanOrEqual(1);
    expect(counter.signRequests()).toBeLessThanOrEqual(Math.ceil(pages.length / 10));
  });

  it('leaves the feed (XML), the JSON index and a fragment without <main> untouched', async () => {
    for (const [path, content] of unsigned) expect(await project.read(path), path).toBe(content);
    expect(existsSync(join(project.outDir, 'draft/index.html'))).toBe(false);
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
      const deadline = Date.now() + 30_000;
      while (!/Server at|Wrote \d+ files/.test(server.output)) {
        if (Date.now() > deadline) throw new Error(`eleventy --serve did not start:\n${server.output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
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

      const transforms: ((this: { page: { outputPath: string | false } }, content: unknown) => unknown)[] =
        [];
      const handlers = new Map<string, (args: EleventyEventArgs) => unknown>();
      siegel(
        {
          addTransform: (_name, callback) => void transforms.push(callback),
          on: (event, callback) => void handlers.set(event, callback),
        },
        {
          site: 'https://atomic.siegel.invalid',
          cacheFile: join(dir, '.sign-cache.json'),
          bunkerUrl: bunker.url,
          bunkerApiToken: bunker.apiToken,
          bunkerKeyName: bunker.keyName,
        },
      );
      const args: EleventyEventArgs = { directories: { output: outDir }, runMode: 'build', outputMode: 'fs' };
      await handlers.get('eleventy.before')?.(args);
      for (const transform of transforms) transform.call({ page: { outputPath: page } }, html);
      await handlers.get('eleventy.after')?.(args);

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
