// Issue 34: no signing run writes a page it has not verified. The parse proves most blocks' places safe
// (page/block-slot.ts); every other signed page is read back as a verifier reads it, and one that would not
// verify is not written, is reported with the verifiers' code, and fails the run (the CLI exits 1). The
// wrong place is made through the test-only seam of signSite (SIGN_SITE_SEAMS), which no user can reach.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SignSiteOptions, signSite } from '../src/index.js';
import { readSignatureBlock } from '../src/page/signature-block-read.js';
import type { SignRunSeams } from '../src/pipeline/decide.js';
import { SIGN_SITE_SEAMS } from '../src/pipeline/sign-site.js';
import {
  CountingSigner,
  collectingLogger,
  FIXTURE_PAGES,
  KEY_A,
  readPages,
  SITE,
  useFixtureProjects,
} from './support/site-fixture.js';

const { createProject } = useFixtureProjects();
const PATHS = Object.keys(FIXTURE_PAGES);

async function sign(dist: string, cacheFile: string, extra: object = {}) {
  const log = collectingLogger();
  const summary = await signSite(dist, {
    site: SITE,
    signer: new CountingSigner(KEY_A),
    cacheFile,
    logger: log.logger,
    progress: false,
    ...extra,
  } as SignSiteOptions);
  return { summary, log };
}

describe('a signed page is written only once it would verify', () => {
  it('a block put inside <main> (through the seam) is read back: not written, reported, the run fails', async () => {
    const { dist, cacheFile } = await createProject();
    const seams: SignRunSeams = {
      parsed: (page, path) => {
        if (path !== 'about.html') return page;
        const at = FIXTURE_PAGES['about.html']?.indexOf('<main class="x">') as number;
        const inside = at + '<main class="x">'.length;
        return { ...page, place: { insertAt: inside }, bytePlace: { insertAt: inside }, splicesSafely: true };
      },
    };
    const { summary, log } = await sign(dist, cacheFile, { [SIGN_SITE_SEAMS]: seams });
    expect(summary).toMatchObject({ signed: 3, failed: 1, skipped: 1 });
    // The seam's place is never taken as proven, whatever it claims: that page alone was read back.
    expect(summary.blockChecks).toEqual({ proven: 3, readBack: 1 });
    const about = summary.pages.find((page) => page.path === 'about.html');
    expect(about).toMatchObject({ outcome: 'failed', code: 'block.missing' });
    expect(about?.error).toMatch(/^not written: the signed page would not verify \(block\.missing: /);
    expect(log.info.join('\n')).toMatch(/about\.html.*not written/);
    // Not written, not cached; every other page is signed as usual.
    const pages = await readPages(dist, PATHS);
    expect(pages['about.html']).toBe(FIXTURE_PAGES['about.html']);
    const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(Object.keys(cache.pages).sort()).toEqual([
      'blog/first/index.html',
      'blog/second/index.html',
      'index.html',
    ]);
    expect(readSignatureBlock(pages['index.html'] as string)?.eventId).toBe(
      cache.pages['index.html'].event.id,
    );
    // The next run (without the seam) signs the page, in its place.
    const again = await sign(dist, cacheFile);
    expect(again.summary).toMatchObject({ signed: 1, unchanged: 3, failed: 0 });
    expect(again.summary.blockChecks).toEqual({ proven: 1, readBack: 0 });
  });

  it('a page that names another signer in its own nostr:pubkey meta is not written (signer.unexpected)', async () => {
    const other = 'ab'.repeat(32);
    const page = `<!doctype html><head><meta name="nostr:pubkey" content="${other}"><title>T</title></head><main>hi</main>`;
    const { dist, cacheFile } = await createProject({ 'index.html': page });
    const { summary } = await sign(dist, cacheFile);
    expect(summary).toMatchObject({ signed: 0, failed: 1 });
    expect(summary.blockChecks).toEqual({ proven: 0, readBack: 1 });
    expect(summary.pages[0]).toMatchObject({ outcome: 'failed', code: 'signer.unexpected' });
    expect(await readFile(join(dist, 'index.html'), 'utf8')).toBe(page);
  });

  it('a block replaced in a page signed before is read back, and written when it verifies', async () => {
    const { dist, cacheFile } = await createProject();
    await sign(dist, cacheFile);
    const signed = (await readPages(dist, ['index.html']))['index.html'] as string;
    // The built page already carries a block (the site was signed in place) and its <main> changed.
    const { rm, writeFile } = await import('node:fs/promises');
    await rm(cacheFile);
    await writeFile(join(dist, 'index.html'), signed.replace('Text&nbsp;hier', 'Neuer Text'));
    const { summary } = await sign(dist, cacheFile);
    expect(summary).toMatchObject({ signed: 4, failed: 0 });
    // Four pages carry an earlier block: each replacement was read back.
    expect(summary.blockChecks).toEqual({ proven: 0, readBack: 4 });
    const after = (await readPages(dist, ['index.html']))['index.html'] as string;
    expect(after.match(/siegel-page\/2:/g)).toHaveLength(1);
    expect(after).toContain('Neuer Text');
  });
});
