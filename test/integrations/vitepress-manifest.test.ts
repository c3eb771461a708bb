// Issue 36, acceptance 2: client-side navigation is covered. VitePress renders the page a reader clicks to
// from that page's JS chunk (`assets/about.md.<hash>.lean.js`), not from its HTML: one byte of such a chunk
// changed must be reported as `asset.changed` by `siegel verify <url>` and by the verify page — checked from
// another page (the guide), whose HTML never loads the about page's chunk: every `.js` of the manifest is
// hashed for a module-based page. The example is built once for this file, signed by `@siegel/vite`.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyzePage } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { readVerdict } from '../support/read-verdict.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { copyExample, type ExampleProject, VITEPRESS_ADAPTER } from './support/example-project.js';

// Timeouts (docs/testing.md): a VitePress build, 30 s among parallel files; then two CLI runs and Chromium:
// 29 s at a load average of 27.
vi.setConfig({ testTimeout: 120_000 });

let project: ExampleProject;
let server: StaticServer;
let chromium: LaunchedChromium;

interface JsonReport {
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string; message: string }> }>;
}

beforeAll(async () => {
  project = await copyExample(VITEPRESS_ADAPTER, 'vitepress-manifest');
  // The host first: the site is signed for its address. It reads the output folder per request.
  server = await serveDirectory(project.outDir, { cleanUrls: true });
  await project.configure({ site: server.url });
  await project.writeEnv({ SIEGEL_SECRET_KEY: '8'.repeat(64) });
  const result = await project.build();
  if (result.code !== 0) throw new Error(`build failed (${result.code}):\n${result.output}`);
  chromium = await launchChromium();
}, 240_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await project?.remove();
});

describe('a VitePress page chunk changed (acceptance 2)', () => {
  it('siegel verify <url> and the verify page report asset.changed, naming the chunk', async () => {
    const assets = await readdir(join(project.outDir, 'assets'));
    const chunk = assets.find((name) => /^about\.md\.[\w-]+\.lean\.js$/.test(name));
    if (!chunk) throw new Error(`no lean chunk of about.md in ${assets.join(', ')}`);
    const guide = await project.read('guide/getting-started.html');
    // The guide's HTML does not load the about page's chunk: only the every-chunk rule can catch it.
    expect(guide).not.toContain(chunk);
    const eventId = analyzePage(guide).signatureBlock?.eventId as string;
    const page = `${server.url}guide/getting-started`;
    const judge = async () => {
      // Crawled from the guide: its folder only (`/guide/`).
      const result = await runCli(['verify', page, '--json'], project.dir);
      const report = JSON.parse(result.stdout) as JsonReport;
      const found = report.pages.find((p) => p.page === page);
      return {
        codes: [found?.verdict, ...(found?.problems.map((problem) => problem.code) ?? [])],
        text: found?.problems.map((problem) => problem.message).join('\n') ?? result.stderr,
      };
    };
    expect((await judge()).codes).toEqual(['valid', 'manifest.unchecked']);

    const file = join(project.outDir, 'assets', chunk);
    const original = await readFile(file);
    const changed = Buffer.from(original);
    changed[changed.length - 2] = changed[changed.length - 2] === 0x20 ? 0x0a : 0x20;
    await writeFile(file, changed);
    try {
      const cli = await judge();
      expect(cli.codes).toEqual(['invalid', 'asset.changed', 'manifest.unchecked']);
      expect(cli.text).toContain(`/assets/${chunk}`);
      const verdict = await readVerdict(await chromium.tab(), server.url, eventId);
      expect(verdict.state, verdict.text).toBe('invalid');
      expect(verdict.codes).toContain('asset.changed');
      expect(verdict.text).toContain(chunk);
    } finally {
      await writeFile(file, original);
    }
  });
});
