// Issue 37: hydration is not a change. Real builds of the Astro example (a hydrated island on
// /counter/) and the VitePress example (Vue hydrates the whole page), built without Siegel, signed by
// `signSite` for the loopback server that serves them: the extension in Chromium must read VALID, not
// CHANGED, on each, once the page's scripts have run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyzePage } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADAPTERS,
  copyExample,
  type ExampleAdapter,
  type ExampleProject,
  VITEPRESS_ADAPTER,
} from '../integrations/support/example-project.ts';
import { type ExtensionBrowser, launchWithExtension } from '../support/extension.ts';
import { type RunningRelay, startRelay } from '../support/relay-process.ts';
import { signTestSite } from '../support/sign-test-site.ts';
import { type StaticServer, serveDirectory } from '../support/static-server.ts';
import { CASE_KEY } from '../support/verdict-cases.ts';

// Timeouts (docs/testing.md): an Astro and a VitePress build, 30 s each alone on 2 cores, 70 s under load.
vi.setConfig({ testTimeout: 45_000, hookTimeout: 180_000 });

const ASTRO = ADAPTERS.find((adapter) => adapter.tool === 'astro') as ExampleAdapter;

let relay: RunningRelay;
let browser: ExtensionBrowser;
const built: Array<{ project: ExampleProject; server: StaticServer }> = [];

/** Build `adapter`'s example without Siegel, serve its output and sign it for that address. */
async function buildSigned(
  adapter: ExampleAdapter,
): Promise<{ project: ExampleProject; server: StaticServer }> {
  const project = await copyExample(adapter, `extension-${adapter.tool}`);
  await project.configure(false);
  const result = await project.build();
  if (result.code !== 0) throw new Error(`${adapter.tool} build failed:\n${result.output}`);
  const server = await serveDirectory(project.outDir, { cleanUrls: adapter === VITEPRESS_ADAPTER });
  await signTestSite(project.outDir, server.url, CASE_KEY, join(project.dir, '.sign-cache.json'));
  const entry = { project, server };
  built.push(entry);
  return entry;
}

/** The address a signed page was signed for (its event's `url`). */
async function signedUrl(outDir: string, path: string): Promise<string> {
  const id = analyzePage(await readFile(join(outDir, path), 'utf8')).signatureBlock?.eventId as string;
  const event = JSON.parse(await readFile(join(outDir, 'verify', `${id}.json`), 'utf8')) as {
    tags: string[][];
  };
  return event.tags.find((tag) => tag[0] === 'url')?.[1] as string;
}

let astro: { project: ExampleProject; server: StaticServer };
let vitepress: { project: ExampleProject; server: StaticServer };

beforeAll(async () => {
  relay = await startRelay();
  astro = await buildSigned(ASTRO);
  vitepress = await buildSigned(VITEPRESS_ADAPTER);
  browser = await launchWithExtension();
  await browser.setRelays([relay.url]);
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  for (const { project, server } of built) {
    await server.close();
    await project.remove();
  }
});

describe('hydration that changes nothing a reader sees or follows is no change', () => {
  it('reads VALID on the Astro example’s page with a hydrated island', async () => {
    const tab = await browser.context.newPage();
    await tab.goto(await signedUrl(astro.project.outDir, 'counter/index.html'));
    // The island's script ran (it marks the element) before the state is read.
    await tab.waitForSelector('siegel-counter[hydrated]');
    expect(await browser.stateOf(tab)).toMatch(/^VALID /);
    await tab.close();
  });

  it('reads VALID on a VitePress page after Vue hydrated it', async () => {
    const tab = await browser.context.newPage();
    await tab.goto(await signedUrl(vitepress.project.outDir, 'guide/getting-started.html'));
    await tab.waitForFunction(
      () => (document.querySelector('#app') as { __vue_app__?: unknown } | null)?.__vue_app__ !== undefined,
    );
    expect(await browser.stateOf(tab)).toMatch(/^VALID /);
    await tab.close();
  });
});
