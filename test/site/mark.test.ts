// Issue 38, item 2 (the signing half, no sockets): the `mark` option — refused when malformed, with the
// option's name; with it on, a run writes `verify/siegel-mark.js`, names it in each signed page's block under
// the site's base path, pins it in the site manifest (file and loads), and the pages still verify; turned off
// again, the next run takes the script out of every block without signing anything again.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner, readSignatureBlock, signSite, verifySite } from '@siegel/core';
import { integrationOptionsSchema, parseIntegrationOptions } from '@siegel/core/integration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSiteManifest } from '../support/site-manifest-files.js';

const KEY = '7'.repeat(64);
const SITE = 'https://example.com/docs';
const quiet = { info: () => {}, warn: () => {} };

let root: string;
let dir: string;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
  `<script type="module" src="/docs/app.js"></script></head>` +
  `<body><header>site</header><main><h1>${title}</h1><p>${body}</p></main>` +
  `<footer><siegel-mark></siegel-mark></footer></body></html>`;

const sign = (mark: unknown, files?: string[]) =>
  signSite(dir, {
    site: SITE,
    signer: new LocalKeySigner(KEY),
    cacheFile: join(root, 'cache.json'),
    logger: quiet,
    progress: false,
    parseWorkers: 0,
    ...(mark === undefined ? {} : { mark: mark as boolean }),
    ...(files ? { files } : {}),
  });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-mark-'));
  dir = join(root, 'dist');
  await mkdir(join(dir, 'blog'), { recursive: true });
  await writeFile(join(dir, 'index.html'), page('Home', 'Welcome.'));
  await writeFile(join(dir, 'blog/post.html'), page('Post', 'A post.'));
  await writeFile(join(dir, 'app.js'), 'console.log("app");\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the mark option', () => {
  it.each([
    ['yes', '`mark` must be true, false or { server?: URL, extension?: URL }, got `yes`'],
    [
      { server: 'ftp://files.example' },
      '`mark.server` must be an absolute http(s) URL without query or fragment, got `ftp://files.example`',
    ],
    [
      { extension: 'https://x.example/?q=1' },
      '`mark.extension` must be an absolute http(s) URL without query or fragment',
    ],
    [{ sever: 'https://files.example' }, 'Unknown option `mark.sever`'],
  ])('signSite refuses %j before any page is read', async (mark, message) => {
    await expect(sign(mark)).rejects.toThrow(message);
  });

  it('the integrations refuse a bad one naming the integration and the field', () => {
    expect(() =>
      parseIntegrationOptions(integrationOptionsSchema, { mark: { server: 'not a url' } }, '@siegel/vite'),
    ).toThrow('@siegel/vite: option `mark.server`: must be an absolute http(s) URL');
    expect(() =>
      parseIntegrationOptions(integrationOptionsSchema, { mark: { servers: 'x' } }, '@siegel/astro'),
    ).toThrow('@siegel/astro: unknown option `mark.servers`');
    expect(parseIntegrationOptions(integrationOptionsSchema, { mark: true }, '@siegel/eleventy')).toEqual({
      mark: true,
    });
  });
});

describe('a run with the mark on', () => {
  it('writes the script, names it in every block under the base path, pins it, and the pages verify', async () => {
    const summary = await sign({ server: 'https://files.example/', extension: 'https://ext.example/a"b' });
    expect(summary.signed).toBe(2);
    const script = await readFile(join(dir, 'verify/siegel-mark.js'), 'utf8');
    expect(script).toContain('siegel-mark');
    expect(Buffer.byteLength(script)).toBeLessThan(8 * 1024);
    for (const path of ['index.html', 'blog/post.html']) {
      const html = await readFile(join(dir, path), 'utf8');
      const block = html.slice(html.indexOf('<!-- siegel-page/2'), html.indexOf('<!-- /siegel-page -->'));
      expect(block, path).toContain(
        '<script src="/docs/verify/siegel-mark.js" data-server="https://files.example" ' +
          'data-extension="https://ext.example/a&quot;b" defer></script>',
      );
      expect(readSignatureBlock(html)?.pubkey, path).toBeDefined();
      // Nothing else of the page moved: the author's element stays where it was, empty.
      expect(html).toContain('<footer><siegel-mark></siegel-mark></footer>');
    }
    const { verified, manifest } = await readSiteManifest(dir);
    expect(verified).toBe(true);
    expect(manifest.files.get('/verify/siegel-mark.js')).toBeDefined();
    for (const path of ['/index.html', '/blog/post.html'])
      expect(manifest.pages.get(path)?.loads, path).toEqual([
        'script /app.js',
        'script /verify/siegel-mark.js',
      ]);
    const report = await verifySite(dir, { site: SITE });
    expect(report.pages.map((p) => [p.page, p.verdict, p.problems.map((x) => x.code)])).toEqual([
      ['blog/post.html', 'valid', ['manifest.unchecked']],
      ['index.html', 'valid', ['manifest.unchecked']],
    ]);
  });

  it('another copy of the script in verify/ is asset.changed on every page that names it', async () => {
    const original = await readFile(join(dir, 'verify/siegel-mark.js'), 'utf8');
    await writeFile(join(dir, 'verify/siegel-mark.js'), `${original}\ndocument.title = 'x';\n`);
    try {
      const report = await verifySite(dir, { site: SITE });
      for (const p of report.pages)
        expect(
          p.problems.map((x) => x.code),
          p.page,
        ).toContain('asset.changed');
    } finally {
      await writeFile(join(dir, 'verify/siegel-mark.js'), original);
    }
  });

  it('turned off, the next run rewrites the blocks without it and signs nothing again', async () => {
    const summary = await sign(false);
    expect(summary.signed).toBe(0);
    for (const path of ['index.html', 'blog/post.html']) {
      const html = await readFile(join(dir, path), 'utf8');
      expect(html, path).not.toContain('siegel-mark.js');
    }
    const { manifest } = await readSiteManifest(dir);
    expect(manifest.pages.get('/index.html')?.loads).toEqual(['script /app.js']);
    const report = await verifySite(dir, { site: SITE });
    expect(report.pages.every((p) => p.verdict === 'valid')).toBe(true);
  });
});
