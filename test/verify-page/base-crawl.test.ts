// Issue 35, item 2: a site whose pages set `<base href>` (Hugo, Jekyll and Angular themes) signs, and
// `siegel verify URL` reads it as a browser does — the base URL recorded in the event and checked, and the
// crawl following links resolved against the base URL, so pages linked only relative to it are found.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner, signSite } from '@siegel/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

let root: string;
let server: StaticServer;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><base href="/docs/"><title>${title}</title></head><body><main>${body}</main></body></html>\n`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-base-crawl-'));
  const dir = join(root, 'site');
  await mkdir(join(dir, 'docs', 'guide'), { recursive: true });
  // `guide/` is linked only relative to the base URL: against the start page's own address it is `/guide/`.
  await writeFile(join(dir, 'index.html'), page('Start', '<a href="guide/">Guide</a>'));
  await writeFile(join(dir, 'docs', 'guide', 'index.html'), page('Guide', '<p>Read me.</p>'));
  server = await serveDirectory(dir);
  await signSite(dir, {
    site: server.url,
    signer: new LocalKeySigner('8'.repeat(64)),
    cacheFile: join(root, '.sign-cache.json'),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

it('siegel verify URL: pages with a <base href> are valid, and the crawl follows links as the base URL resolves them', async () => {
  const result = await runCli(['verify', server.url, '--json'], root);
  const report = JSON.parse(result.stdout) as { pages: Array<{ page: string; verdict: string }> };
  expect(report.pages.map(({ page, verdict }) => [page, verdict])).toEqual([
    [server.url, 'valid'],
    [new URL('docs/guide/', server.url).href, 'valid'],
  ]);
  expect(result.code).toBe(0);
});
