import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'parse5';
import { afterEach, describe, expect, it } from 'vitest';
import { readSignatureBlock, signSite, verifySite } from '../src/index.js';
import { CountingSigner, collectingLogger, createFixtureProject, KEY_A } from './support/site-fixture.js';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

function countScripts(html: string): number {
  let count = 0;
  const walk = (node: { nodeName: string; childNodes?: unknown[]; content?: { childNodes: unknown[] } }) => {
    if (node.nodeName === 'script') count++;
    for (const child of (node.childNodes ?? []) as (typeof node)[]) walk(child);
  };
  walk(parse(html) as never);
  return count;
}

describe('signSite security', () => {
  it('hostile titles, descriptions and file names cannot inject markup into pages or verify pages', async () => {
    const hostile = '"><script>alert(1)</script><!-- --> \u2028 &amp;';
    const pages = {
      'we"ird\'<>&name.html': `<!doctype html><meta charset="utf-8"><title>${hostile.replace(/</g, '&lt;')}</title><meta name="description" content='${hostile.replace(/'/g, '&#39;')}'><main>x</main>`,
    };
    const project = await createFixtureProject(pages);
    cleanups.push(project.cleanup);
    const signer = new CountingSigner(KEY_A);
    const summary = await signSite(project.dist, {
      site: 'https://example.com/a"b',
      signer,
      cacheFile: project.cacheFile,
      logger: collectingLogger().logger,
      progress: false,
    });
    expect(summary.signed).toBe(1);
    const [path] = Object.keys(pages) as [string];
    const html = await readFile(join(project.dist, path), 'utf8');
    expect(countScripts(html)).toBe(0);
    const block = readSignatureBlock(html);
    expect(block?.eventId).toMatch(/^[0-9a-f]{64}$/);
    const verifyPage = await readFile(
      join(project.dist, 'verify', block?.eventId as string, 'index.html'),
      'utf8',
    );
    // The verify page has its own two scripts (event JSON, shared script) and no injected one.
    expect(countScripts(verifyPage)).toBe(2);
    expect(verifyPage).not.toContain('<script>alert(1)');
    expect(
      (await readdir(join(project.dist, 'verify'))).every((name) =>
        /^([0-9a-f]{64}(\.json)?|siegel-verify\.js|index\.html|manifest\.json)$/.test(name),
      ),
    ).toBe(true);
    // The site-wide verify page carries the (hostile) site URL as data only: one script, the shared one.
    const lookupPage = await readFile(join(project.dist, 'verify', 'index.html'), 'utf8');
    expect(countScripts(lookupPage)).toBe(1);
    expect(lookupPage).toContain('data-site="https://example.com/a%22b"');
    expect((await verifySite(project.dist)).ok).toBe(true);
  });
});
