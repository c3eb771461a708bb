import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSiteSigner, readSignatureBlock, signSite, verifySite } from '../src/index.js';
import {
  CountingSigner,
  collectingLogger,
  FIXTURE_PAGES,
  KEY_A,
  SITE,
  useFixtureProjects,
  writePages,
} from './support/site-fixture.js';

const { createProject } = useFixtureProjects();

describe('createSiteSigner', () => {
  it('batches concurrent pages into one request and writes verify pages and cache on finish', async () => {
    const project = await createProject({});
    const outDir = join(project.root, '_site');
    const signer = new CountingSigner(KEY_A);
    const log = collectingLogger();
    const site = createSiteSigner({
      outDir,
      site: SITE,
      signer,
      cacheFile: project.cacheFile,
      logger: log.logger,
    });
    const entries = Object.entries(FIXTURE_PAGES);
    const outputs = await Promise.all(entries.map(([path, html]) => site.signPage(path, html)));
    expect(signer.calls).toBe(1);
    expect(outputs[entries.findIndex(([path]) => path === 'no-main.html')]).toBe(
      FIXTURE_PAGES['no-main.html'],
    );
    // The build tool writes the pages; then finish() adds verify pages and the cache.
    await writePages(outDir, Object.fromEntries(entries.map(([path], i) => [path, outputs[i] as string])));
    const summary = await site.finish();
    expect(summary).toMatchObject({ signed: 4, unchanged: 0, skipped: 1, failed: 0 });
    expect(log.info.at(-1)).toBe('Siegel: 4 signed, 0 unchanged, 1 skipped (no <main>), 0 failed');
    const verifyFiles = await readdir(join(outDir, 'verify'));
    expect(verifyFiles).toContain('siegel-verify.js');
    expect(verifyFiles.filter((name) => name.endsWith('.json'))).toHaveLength(4);
    expect(await verifySite(outDir, { pubkey: await signer.getPublicKey() })).toMatchObject({
      ok: true,
      valid: 4,
    });

    // Next build: every page from the cache, no request; same bytes as signSite would write.
    const again = createSiteSigner({
      outDir,
      site: SITE,
      signer,
      cacheFile: project.cacheFile,
      logger: log.logger,
    });
    signer.calls = 0;
    const second = await Promise.all(entries.map(([path, html]) => again.signPage(path, html)));
    expect(second).toEqual(outputs);
    expect((await again.finish()).unchanged).toBe(4);
    expect(signer.calls).toBe(0);
    await writePages(project.dist, FIXTURE_PAGES);
    await signSite(project.dist, {
      site: SITE,
      signer,
      cacheFile: project.cacheFile,
      logger: log.logger,
      progress: false,
    });
    expect(signer.calls).toBe(0);
    for (const [index, [path]] of entries.entries()) {
      expect(await readFile(join(project.dist, path), 'utf8')).toBe(second[index]);
    }
  });

  it('sends a full batch at once and the rest on the next tick', async () => {
    const project = await createProject({});
    const signer = new CountingSigner(KEY_A);
    const site = createSiteSigner({
      outDir: join(project.root, 'out'),
      site: SITE,
      signer,
      cacheFile: project.cacheFile,
      batchSize: 3,
      logger: collectingLogger().logger,
    });
    const pages = Array.from({ length: 7 }, (_, i) =>
      site.signPage(`p${i}.html`, `<title>${i}</title><main>page ${i}</main>`),
    );
    const signed = await Promise.all(pages);
    expect(signer.calls).toBe(3);
    expect(signer.events).toBe(7);
    expect(new Set(signed.map((html) => readSignatureBlock(html)?.eventId)).size).toBe(7);
    expect((await site.finish()).signed).toBe(7);
  });

  it('never has more than maxInFlight batches at the bunker', async () => {
    const project = await createProject({});
    const inner = new CountingSigner(KEY_A);
    let active = 0;
    let peak = 0;
    const slow = {
      getPublicKey: () => inner.getPublicKey(),
      async signEvents(templates: Parameters<CountingSigner['signEvents']>[0]) {
        active++;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active--;
        return inner.signEvents(templates);
      },
    };
    const site = createSiteSigner({
      outDir: join(project.root, 'out'),
      site: SITE,
      signer: slow,
      cacheFile: project.cacheFile,
      batchSize: 2,
      maxInFlight: 1,
      logger: collectingLogger().logger,
    });
    const pages = Array.from({ length: 9 }, (_, i) => site.signPage(`p${i}.html`, `<main>page ${i}</main>`));
    expect(await Promise.all(pages)).toHaveLength(9);
    expect(peak).toBe(1);
    expect(inner.calls).toBe(5);
    expect((await site.finish()).signed).toBe(9);
  });
});
