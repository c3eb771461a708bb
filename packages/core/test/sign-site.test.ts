import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import * as nip94 from 'nostr-tools/nip94';
import { verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import {
  describeCoverage,
  formatSummary,
  LocalKeySigner,
  SiegelError,
  type Signer,
  type SignSiteOptions,
  signSite,
} from '../src/index.js';
import { readManifest } from '../src/manifest/site-manifest.js';
import { analyzePage, hashPage } from '../src/page/analyze.js';
import { PARSER_REVISION } from '../src/page/parse.js';
import { applySignatureBlock, renderSignatureBlock } from '../src/page/signature-block.js';
import { readSignatureBlock } from '../src/page/signature-block-read.js';
import {
  CountingSigner,
  collectingLogger,
  cp,
  FIXTURE_PAGES,
  KEY_A,
  KEY_B,
  readPages,
  SITE,
  useFixtureProjects,
} from './support/site-fixture.js';

const SIGNED = Object.keys(FIXTURE_PAGES).filter((path) => path !== 'no-main.html');
const { createProject } = useFixtureProjects();

/** Sign a fresh fixture project in verbose mode with a counting signer and a collecting logger. */
async function signFixtureVerbosely(options: SignSiteOptions) {
  const { dist, cacheFile } = await createProject();
  const signer = new CountingSigner(KEY_A);
  const log = collectingLogger();
  const summary = await signSite(dist, {
    site: SITE,
    signer,
    cacheFile,
    verbose: true,
    logger: log.logger,
    progress: false,
    ...options,
  });
  return { dist, cacheFile, signer, log, summary };
}

describe('signSite', () => {
  it('signs every page with <main>: block matches hash and a valid event; the rest is byte-identical', async () => {
    const { dist, cacheFile } = await createProject();
    const signer = new CountingSigner(KEY_A);
    const { logger, info } = collectingLogger();
    const summary = await signSite(dist, { site: SITE, signer, cacheFile, logger, progress: false });
    expect(summary).toMatchObject({ signed: 4, unchanged: 0, skipped: 1, failed: 0 });
    // One request for the four pages, then one for the site manifest that lists them.
    expect(signer.calls).toBe(1);
    expect(signer.manifests).toHaveLength(1);
    expect(info.at(-2)).toBe('Siegel: 4 signed, 0 unchanged, 1 skipped (no <main>), 0 failed');
    expect(info.at(-1)).toMatch(/^Site manifest: signed, \d+ files listed \(inline, \d+ bytes\)$/);
    const manifestEvent = signer.manifests[0] as NostrEvent;
    expect(JSON.parse(await readFile(join(dist, 'verify', 'manifest.json'), 'utf8'))).toEqual(manifestEvent);
    const manifest = readManifest(manifestEvent);
    expect(summary.manifest).toMatchObject({ signed: true, layout: 'inline', eventId: manifestEvent.id });
    // Every file it lists has the SHA-256 it names: the pages and verify pages this run wrote (their hashes
    // taken as the I/O thread wrote them) as much as the files it only read.
    expect([...manifest.files.keys()]).toEqual(expect.arrayContaining(SIGNED.map((path) => `/${path}`)));
    for (const [name, hash] of manifest.files)
      expect([
        name,
        createHash('sha256')
          .update(await readFile(join(dist, name)))
          .digest('hex'),
      ]).toEqual([name, hash]);
    const pubkey = await signer.getPublicKey();
    for (const path of SIGNED) {
      const html = await readFile(join(dist, path), 'utf8');
      const block = readSignatureBlock(html);
      expect(block?.hash).toBe(hashPage(FIXTURE_PAGES[path] as string));
      expect(block?.pubkey).toBe(pubkey);
      const event = JSON.parse(
        await readFile(join(dist, 'verify', `${block?.eventId}.json`), 'utf8'),
      ) as NostrEvent;
      expect(verifyEvent(event)).toBe(true);
      expect(nip94.validateEvent(event)).toBe(true);
      expect(event.tags.find((tag) => tag[0] === 'x')?.[1]).toBe(block?.hash);
      expect(event.id).toBe(block?.eventId);
      expect(manifest.pages.get(`/${path}`)?.eventId).toBe(event.id);
      expect(event.tags).toContainEqual(['a', `35128:${pubkey}:${manifest.d}`]);
      // Outside the block, the file is exactly the input.
      const input = FIXTURE_PAGES[path] as string;
      const expected = applySignatureBlock(
        input,
        analyzePage(input),
        renderSignatureBlock(event, { verifyUrl: `${SITE}/verify/${event.id}` }),
      );
      expect(html).toBe(expected);
      expect((await stat(join(dist, 'verify', event.id, 'index.html'))).isFile()).toBe(true);
    }
    expect(await readFile(join(dist, 'no-main.html'), 'utf8')).toBe(FIXTURE_PAGES['no-main.html']);
    expect((await stat(join(dist, 'verify', 'siegel-verify.js'))).size).toBeGreaterThan(1000);
    const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(cache).toMatchObject({ spec: 'siegel-page/2', pubkey, site: SITE, selector: 'main' });
    expect(Object.keys(cache.pages).sort()).toEqual([...SIGNED].sort());
  });

  it('re-running changes nothing; a fresh unsigned copy signs with 0 requests and identical output', async () => {
    const { root, dist, cacheFile } = await createProject();
    const fresh = join(root, 'fresh');
    await cp(dist, fresh, { recursive: true });
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, options);
    const signed = await readPages(dist, SIGNED);
    const cacheText = await readFile(cacheFile, 'utf8');
    const cacheMtime = (await stat(cacheFile)).mtimeMs;
    const manifest = await readFile(join(dist, 'verify', 'manifest.json'), 'utf8');
    expect(signer.manifests).toHaveLength(1);
    signer.reset();

    const again = await signSite(dist, options);
    expect(again).toMatchObject({ signed: 0, unchanged: 4, skipped: 1 });
    expect(signer.calls).toBe(0);
    expect(signer.manifests).toEqual([]);
    expect(await readPages(dist, SIGNED)).toEqual(signed);
    expect(await readFile(cacheFile, 'utf8')).toBe(cacheText);
    expect((await stat(cacheFile)).mtimeMs).toBe(cacheMtime);

    // A fresh copy (a build that empties the output first) has no verify/manifest.json: the cache's is
    // written back, not signed again.
    const copy = await signSite(fresh, options);
    expect(copy).toMatchObject({ signed: 0, unchanged: 4, skipped: 1 });
    expect(signer.calls).toBe(0);
    expect(signer.manifests).toEqual([]);
    expect(await readPages(fresh, SIGNED)).toEqual(signed);
    expect(await readFile(join(fresh, 'verify', 'manifest.json'), 'utf8')).toBe(manifest);
  });

  it('a cache written by an older page reading: every page is read again once, only pages that read differently are re-signed', async () => {
    const { root, dist, cacheFile } = await createProject();
    // A page whose reading changed in issue 23 (`select` bounds `</p>`): an older version hashed it otherwise.
    const select =
      '<!doctype html><title>Shop</title><main><p>Size: <select><option>M</option></p><p>Batch 42 is recalled.</p></main>\n';
    const pages = { ...FIXTURE_PAGES, 'shop.html': select };
    const { writePages } = await import('./support/site-fixture.js');
    await writePages(dist, pages);
    const signer = new CountingSigner(KEY_A);
    const log = collectingLogger();
    const options = { site: SITE, signer, cacheFile, logger: log.logger, progress: false };
    await signSite(dist, options);
    // The cache as the older version left it: the same file's entry with the old reading's hash and event.
    const written = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(written.parser).toBe(PARSER_REVISION);
    const old = '0'.repeat(64);
    const { kind, created_at, tags, content } = written.pages['shop.html'].event as NostrEvent;
    const [oldEvent] = await new LocalKeySigner(KEY_A).signEvents([
      { kind, created_at, content, tags: tags.map((tag) => (tag[0] === 'x' ? ['x', old] : tag)) },
    ]);
    written.pages['shop.html'] = { ...written.pages['shop.html'], hash: old, event: oldEvent };
    const rebuild = async (name: string, cache: object) => {
      await writeFile(cacheFile, JSON.stringify(cache));
      await writePages(join(root, name), pages);
      signer.reset();
      return signSite(join(root, name), options);
    };
    // Same revision: identical bytes skip parsing, so the stale entry would stand (what the revision is for).
    const same = await rebuild('same', written);
    expect(same).toMatchObject({ signed: 0, unchanged: 5 });
    // The stale entry's event went into shop.html: the manifest, which names each page's event, changes.
    expect(signer.manifests).toHaveLength(1);
    expect(readManifest(signer.manifests[0] as NostrEvent).pages.get('/shop.html')?.eventId).toBe(
      oldEvent?.id,
    );
    // An older revision (a cache without `parser`): all read again, the one page that reads differently re-signed.
    const { parser: _, ...older } = written;
    const again = await rebuild('again', older);
    expect(again).toMatchObject({ signed: 1, unchanged: 4, refused: 0 });
    expect(signer.events).toBe(1);
    // The re-signed page's new event id and bytes: the manifest is signed again, once.
    expect(signer.manifests).toHaveLength(1);
    expect(again.pages.find((page) => page.outcome === 'signed')?.path).toBe('shop.html');
    expect(log.info.some((line) => line.includes('reading every page again once'))).toBe(true);
    const after = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(after.parser).toBe(PARSER_REVISION);
    expect(after.pages['shop.html'].hash).toBe(hashPage(select));
    // And from then on the shortcut holds again.
    const third = await rebuild('third', after);
    expect(third).toMatchObject({ signed: 0, unchanged: 5 });
    expect(signer.manifests).toEqual([]);
  });

  it('changing one page re-signs exactly it; changing only <head> re-signs nothing', async () => {
    const { root, dist, cacheFile } = await createProject();
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, options);
    const before = await readPages(dist, SIGNED);

    const changed = {
      ...FIXTURE_PAGES,
      'about.html': (FIXTURE_PAGES['about.html'] as string).replace('things', 'stuff'),
    };
    const next = join(root, 'next');
    const { writePages } = await import('./support/site-fixture.js');
    await writePages(next, changed);
    signer.reset();
    const summary = await signSite(next, options);
    expect(summary).toMatchObject({ signed: 1, unchanged: 3 });
    expect(signer.events).toBe(1);
    expect(signer.manifests).toHaveLength(1);
    const aboutEvent = readSignatureBlock(
      (await readPages(next, ['about.html']))['about.html'] as string,
    )?.eventId;
    expect(readManifest(signer.manifests[0] as NostrEvent).pages.get('/about.html')?.eventId).toBe(
      aboutEvent,
    );
    expect(summary.pages.find((page) => page.outcome === 'signed')?.path).toBe('about.html');
    const after = await readPages(next, SIGNED);
    expect(readSignatureBlock(after['about.html'] as string)?.eventId).not.toBe(
      readSignatureBlock(before['about.html'] as string)?.eventId,
    );
    expect(after['index.html']).toBe(before['index.html']);

    const headOnly = {
      ...FIXTURE_PAGES,
      'about.html': changed['about.html']?.replace('<title>', '<meta name="x" content="y"><title>') as string,
    };
    const third = join(root, 'third');
    await writePages(third, headOnly);
    signer.reset();
    expect(await signSite(third, options)).toMatchObject({ signed: 0, unchanged: 4 });
    expect(signer.events).toBe(0);
    // The page's event stands, but its bytes changed: the manifest, which pins every file's hash, does not.
    expect(signer.manifests).toHaveLength(1);
    expect(readManifest(signer.manifests[0] as NostrEvent).pages.get('/about.html')?.eventId).toBe(
      aboutEvent,
    );
  });

  it('a different key re-signs all pages with a notice; a corrupt cache is a warning', async () => {
    const { root, dist, cacheFile } = await createProject();
    const fresh = join(root, 'fresh');
    await cp(dist, fresh, { recursive: true });
    await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger: collectingLogger().logger,
      progress: false,
    });
    const other = new CountingSigner(KEY_B);
    const log = collectingLogger();
    const summary = await signSite(dist, {
      site: SITE,
      signer: other,
      cacheFile,
      logger: log.logger,
      progress: false,
    });
    expect(summary).toMatchObject({ signed: 4, unchanged: 0 });
    expect(log.warn.join('\n')).toMatch(
      /made for the key `[0-9a-f]{64}`, now signing as `[0-9a-f]{64}`: re-signing all pages/,
    );
    const pubkeyB = await other.getPublicKey();
    for (const html of Object.values(await readPages(dist, SIGNED))) {
      expect(readSignatureBlock(html)?.pubkey).toBe(pubkeyB);
      expect(html.match(/siegel-page\/2:/g)).toHaveLength(1);
    }

    await writeFile(cacheFile, '{"spec": "siegel-page/2", "pages": {');
    const corrupt = collectingLogger();
    const result = await signSite(fresh, {
      site: SITE,
      signer: other,
      cacheFile,
      logger: corrupt.logger,
      progress: false,
    });
    expect(result).toMatchObject({ signed: 4, failed: 0 });
    expect(corrupt.warn.join('\n')).toMatch(/cache .* is corrupt/);
    expect(JSON.parse(await readFile(cacheFile, 'utf8')).pubkey).toBe(pubkeyB);
  });

  it('mirrors: each event names the page at every mirror (`fallback`); another list of mirrors re-signs every page', async () => {
    const { dist, cacheFile } = await createProject();
    const signer = new CountingSigner(KEY_A);
    const run = async (mirrors: string[] | undefined) => {
      const log = collectingLogger();
      const summary = await signSite(dist, {
        site: SITE,
        signer,
        cacheFile,
        logger: log.logger,
        progress: false,
        ...(mirrors ? { mirrors } : {}),
      });
      return { summary, warn: log.warn.join('\n') };
    };
    const eventOf = async (path: string) => {
      const block = readSignatureBlock(await readFile(join(dist, path), 'utf8'));
      return JSON.parse(await readFile(join(dist, 'verify', `${block?.eventId}.json`), 'utf8')) as NostrEvent;
    };
    const mirrors = ['https://mirror.example.org/', 'https://example.net/copy'];
    expect((await run(mirrors)).summary).toMatchObject({ signed: 4, unchanged: 0 });
    for (const path of SIGNED) {
      const event = await eventOf(path);
      const url = event.tags.find((tag) => tag[0] === 'url')?.[1] as string;
      const relative = url.slice(SITE.length);
      expect(
        event.tags.filter((tag) => tag[0] === 'fallback'),
        path,
      ).toEqual([
        ['fallback', `https://mirror.example.org${relative}`],
        ['fallback', `https://example.net/copy${relative}`],
      ]);
      expect(nip94.validateEvent(event)).toBe(true);
    }
    expect(JSON.parse(await readFile(cacheFile, 'utf8')).mirrors).toEqual([
      'https://mirror.example.org',
      'https://example.net/copy',
    ]);
    // The same mirrors: nothing to sign, the manifest included.
    signer.reset();
    expect((await run(mirrors)).summary).toMatchObject({ signed: 0, unchanged: 4 });
    expect(signer.events).toBe(0);
    expect(signer.manifests).toEqual([]);
    // One mirror dropped: the events change, so every page is signed again, with a notice.
    const fewer = await run(['https://mirror.example.org']);
    expect(fewer.summary).toMatchObject({ signed: 4, unchanged: 0 });
    expect(fewer.warn).toMatch(/made for other mirrors .*re-signing all pages/);
    expect((await eventOf('about.html')).tags.filter((tag) => tag[0] === 'fallback')).toEqual([
      ['fallback', 'https://mirror.example.org/about.html'],
    ]);
    // No mirrors: events without `fallback` tags, as before mirrors existed.
    expect((await run(undefined)).summary).toMatchObject({ signed: 4, unchanged: 0 });
    expect((await eventOf('about.html')).tags.some((tag) => tag[0] === 'fallback')).toBe(false);
    expect(JSON.parse(await readFile(cacheFile, 'utf8'))).not.toHaveProperty('mirrors');
  });

  it('dry run signs and writes nothing and reports what would be signed', async () => {
    const { dist, cacheFile, signer, log, summary } = await signFixtureVerbosely({ dryRun: true });
    expect(summary).toMatchObject({ signed: 4, skipped: 1, dryRun: true });
    expect(summary.pages.filter((page) => page.outcome === 'would-sign')).toHaveLength(4);
    expect(signer.calls).toBe(0);
    expect(signer.manifests).toEqual([]);
    expect(summary.manifest).toBeUndefined();
    expect(await readPages(dist, Object.keys(FIXTURE_PAGES))).toEqual(FIXTURE_PAGES);
    await expect(stat(cacheFile)).rejects.toThrow();
    await expect(stat(join(dist, 'verify'))).rejects.toThrow();
    expect(log.info.at(-1)).toMatch(/^Siegel \(dry run, nothing written\): 4 would be signed/);
    expect(log.info.at(-1)).toContain('would-sign  about.html');
  });

  it('a signer error is thrown before any page or the cache is touched', async () => {
    const { dist, cacheFile } = await createProject();
    await writeFile(cacheFile, 'not json at all');
    const locked: Signer = {
      getPublicKey: async () => 'a'.repeat(64),
      signEvents: async () => [],
      check: async () => {
        throw new SiegelError('key_locked', 'Key ist gesperrt');
      },
    };
    await expect(
      signSite(dist, { site: SITE, signer: locked, cacheFile, logger: collectingLogger().logger }),
    ).rejects.toThrow(/^Key ist gesperrt/);
    expect(await readPages(dist, Object.keys(FIXTURE_PAGES))).toEqual(FIXTURE_PAGES);
    expect(await readFile(cacheFile, 'utf8')).toBe('not json at all');
  });

  it('a page whose event the signer refuses fails alone (issue 10): listed with the reason, the other pages signed and cached', async () => {
    const big = `<!doctype html><title>${'Lang '.repeat(2_000)}</title><main><p>big</p></main>`;
    const { dist, cacheFile } = await createProject({ ...FIXTURE_PAGES, 'big.html': big });
    // A real local key behind a bunker-like limit: a batch holding an event over 5 000 bytes is refused.
    const inner = new CountingSigner(KEY_A);
    // Page requests by size; the site manifest's request as 'manifest'.
    const batches: Array<number | 'manifest'> = [];
    const refusing: Signer = {
      getPublicKey: () => inner.getPublicKey(),
      async signEvents(templates) {
        batches.push(templates[0]?.kind === 35128 ? 'manifest' : templates.length);
        if (templates.some((template) => JSON.stringify(template).length > 5_000))
          throw new SiegelError('event_refused', 'the bunker refused to sign it: HTTP 413 `event_too_large`');
        return inner.signEvents(templates);
      },
    };
    const log = collectingLogger();
    const options = { site: SITE, signer: refusing, cacheFile, logger: log.logger, progress: false };
    const summary = await signSite(dist, options);
    expect(summary).toMatchObject({ signed: 4, failed: 1, skipped: 1 });
    // One batch of five (about, big, blog/first, blog/second, index), then halves until the refused event
    // is alone: [5] → [3] → [2] → [1: about] [1: big, refused], then [1: blog/first] and [2: the rest];
    // then the manifest, listing big.html as a plain file.
    expect(batches).toEqual([5, 3, 2, 1, 1, 1, 2, 'manifest']);
    expect(summary.manifest?.signed).toBe(true);
    const error = summary.pages.find((page) => page.path === 'big.html')?.error;
    expect(error).toMatch(
      /^its event \(\d+(\.\d)? KiB\) was not signed: the bunker refused to sign it: HTTP 413/,
    );
    expect(log.info.at(-2)).toBe(
      `Siegel: 4 signed, 0 unchanged, 1 skipped (no <main>), 1 failed\n  failed   big.html: ${error}`,
    );
    expect(await readFile(join(dist, 'big.html'), 'utf8')).toBe(big);
    for (const path of SIGNED)
      expect(readSignatureBlock(await readFile(join(dist, path), 'utf8'))).toBeDefined();
    const cache = JSON.parse(await readFile(cacheFile, 'utf8')) as { pages: Record<string, unknown> };
    expect(Object.keys(cache.pages).sort()).toEqual([...SIGNED].sort());
    // The next run: the four from the cache, the refused page tried (alone) and failed again; no file
    // changed, so no manifest.
    batches.length = 0;
    const again = await signSite(dist, options);
    expect(again).toMatchObject({ signed: 0, unchanged: 4, failed: 1 });
    expect(batches).toEqual([1]);
  });

  it('a page over maxPageBytes fails unread with the limit named (issue 10: a 54 MB page took 1.86 GB); the others are signed', async () => {
    const { dist, cacheFile } = await createProject();
    const big = `<!doctype html><title>Big</title><main><p>${'Text '.repeat(480_000)}</p></main>`;
    await writeFile(join(dist, 'big.html'), big);
    const log = collectingLogger();
    const summary = await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger: log.logger,
      progress: false,
      env: { SIEGEL_MAX_PAGE_BYTES: '2MiB' },
    });
    expect(summary).toMatchObject({ signed: 4, failed: 1 });
    expect(summary.pages.find((page) => page.path === 'big.html')?.error).toBe(
      `page too large: 2.3 MiB (\`${big.length}\` bytes), more than the limit of 2 MiB (\`2097152\` bytes); it was not read — raise the limit with \`maxPageBytes\`, \`--max-page-bytes\` or SIEGEL_MAX_PAGE_BYTES`,
    );
    expect(log.info.at(-2)).toMatch(/\n {2}failed {3}big\.html: page too large: 2\.3 MiB/);
    expect(log.info.at(-1)).toMatch(/^Site manifest: signed, /);
    expect(await readFile(join(dist, 'big.html'), 'utf8')).toBe(big);
    // Under the limit, the same page is signed (read into its own buffer: over 1 MiB).
    const raised = await signSite(dist, {
      site: SITE,
      signer: new CountingSigner(KEY_A),
      cacheFile,
      logger: log.logger,
      progress: false,
      maxPageBytes: 3 * 1024 * 1024,
    });
    expect(raised).toMatchObject({ signed: 1, unchanged: 4, failed: 0 });
    expect(readSignatureBlock(await readFile(join(dist, 'big.html'), 'utf8'))?.hash).toBe(hashPage(big));
  }, 30_000); // a 2.4 MB page parsed twice: ≈ 1.5 s alone, more on a loaded machine

  it('a signer error that is not a refusal still stops the run with its message (a key locked mid-run)', async () => {
    const { dist, cacheFile } = await createProject();
    const lockedMidRun: Signer = {
      getPublicKey: async () => new LocalKeySigner(KEY_A).getPublicKey(),
      signEvents: async () => {
        throw new SiegelError('key_locked', 'Key ist gesperrt\nThe key `default` is locked.');
      },
    };
    await expect(
      signSite(dist, { site: SITE, signer: lockedMidRun, cacheFile, logger: collectingLogger().logger }),
    ).rejects.toThrow(/^Key ist gesperrt/);
    expect(await readPages(dist, Object.keys(FIXTURE_PAGES))).toEqual(FIXTURE_PAGES);
  });

  it('rejects unknown options and a missing site', async () => {
    const { dist } = await createProject();
    await expect(signSite(dist, { sitee: SITE } as never)).rejects.toThrow(/Unknown option `sitee`/);
    await expect(signSite(dist, {})).rejects.toThrow(/site URL is required/);
  });

  it('pipelines small batches and lists pages in verbose mode', async () => {
    const { signer, summary } = await signFixtureVerbosely({ batchSize: 1 });
    expect(signer.calls).toBe(4);
    expect(signer.manifests).toHaveLength(1);
    expect(summary.signed).toBe(4);
    const text = formatSummary(summary, { verbose: true });
    // The head, a line per page, and what a signature covers.
    expect(text.split('\n')).toHaveLength(7);
    expect(text.split('\n').at(-1)).toBe(describeCoverage('main'));
    expect(formatSummary(summary)).not.toContain(describeCoverage('main'));
    expect(text).toMatch(/skipped\s+no-main\.html\s+no element matches `main`/);
  });

  it('`files` signs just those pages and keeps the cache entries of the others; paths must stay inside', async () => {
    const { dist, cacheFile } = await createProject();
    const signer = new CountingSigner(KEY_A);
    const base = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, base);
    const signedBefore = await readPages(dist, SIGNED);
    // An incremental build rewrites two pages (one changed) and names only them.
    await writeFile(join(dist, 'about.html'), FIXTURE_PAGES['about.html'] as string);
    const changed = (FIXTURE_PAGES['index.html'] as string).replace('Hallo', 'Hallo, Welt');
    await writeFile(join(dist, 'index.html'), changed);
    signer.reset();
    const summary = await signSite(dist, { ...base, files: ['about.html', './index.html'] });
    expect(summary).toMatchObject({ signed: 1, unchanged: 1, skipped: 0, failed: 0 });
    expect(summary.pages.map((page) => page.path)).toEqual(['about.html', 'index.html']);
    expect(signer.calls).toBe(1);
    // The manifest still lists every page: the named ones with this run's events, the others from the cache.
    expect(signer.manifests).toHaveLength(1);
    const after = await readPages(dist, SIGNED);
    const listed = readManifest(signer.manifests[0] as NostrEvent).pages;
    for (const path of SIGNED)
      expect(listed.get(`/${path}`)?.eventId, path).toBe(readSignatureBlock(after[path] as string)?.eventId);
    expect(after['about.html']).toBe(signedBefore['about.html']);
    expect(readSignatureBlock(after['index.html'] as string)?.hash).toBe(hashPage(changed));
    for (const path of SIGNED.filter((p) => p !== 'about.html' && p !== 'index.html')) {
      expect(after[path]).toBe(signedBefore[path]);
    }
    const cache = JSON.parse(await readFile(cacheFile, 'utf8')) as { pages: Record<string, unknown> };
    expect(Object.keys(cache.pages).sort()).toEqual([...SIGNED].sort());

    for (const outside of ['../index.html', '/etc/hostname']) {
      await expect(signSite(dist, { ...base, files: [outside] })).rejects.toThrow(
        /`files` must be relative to the output directory/,
      );
    }
  });

  it('never has more than maxInFlight batches at the signer', async () => {
    const pages = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [`p${i}.html`, `<title>${i}</title><main>page ${i}</main>`]),
    );
    const { dist, cacheFile } = await createProject(pages);
    const inner = new CountingSigner(KEY_A);
    let active = 0;
    let peak = 0;
    const slow: Signer = {
      getPublicKey: () => inner.getPublicKey(),
      async signEvents(templates) {
        active++;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active--;
        return inner.signEvents(templates);
      },
    };
    const summary = await signSite(dist, {
      site: SITE,
      signer: slow,
      cacheFile,
      batchSize: 2,
      maxInFlight: 1,
      logger: collectingLogger().logger,
      progress: false,
    });
    expect(summary.signed).toBe(9);
    expect(peak).toBe(1);
    expect(inner.calls).toBe(5);
    expect(inner.manifests).toHaveLength(1);
  });

  it('handles a BOM and non-ASCII before the block, and fails a page that is not UTF-8', async () => {
    const bom = '\ufeff<!doctype html><title>Ünïcödé ✓</title><main>Grüße</main>';
    const { dist, cacheFile } = await createProject({ 'bom.html': bom });
    await writeFile(
      join(dist, 'latin1.html'),
      Buffer.from('<title>x</title><main>Gr\xfc\xdfe</main>', 'latin1'),
    );
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    const summary = await signSite(dist, options);
    expect(summary).toMatchObject({ signed: 1, failed: 1 });
    expect(summary.pages.find((page) => page.path === 'latin1.html')?.error).toBe('not valid UTF-8');
    const signed = await readFile(join(dist, 'bom.html'), 'utf8');
    expect(signed.startsWith('\ufeff<!doctype html><title>Ünïcödé ✓</title><!-- siegel-page/2')).toBe(true);
    // A fresh copy takes the byte-offset path: the same bytes.
    await writeFile(join(dist, 'bom.html'), bom);
    signer.reset();
    await signSite(dist, options);
    expect(signer.calls).toBe(0);
    expect(signer.manifests).toEqual([]);
    expect(await readFile(join(dist, 'bom.html'), 'utf8')).toBe(signed);
  });

  it('refuses a page a browser would not decode as UTF-8, with the reason; UTF-8 by BOM or <meta> is signed', async () => {
    const page = (head: string, main = 'Grüße') =>
      `<!doctype html><html><head>${head}<title>t</title></head><body><main><p>${main}</p></main></body></html>`;
    const jp = `${page('<meta charset="iso-2022-jp">', 'x')}`.replace('<main>', '\x1b$B<main>\x1b(B');
    const { dist, cacheFile } = await createProject({
      'iso-2022-jp.html': jp,
      'cp1252.html': page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
      'undeclared.html': page(''),
      'ascii.html': page('', 'Gr&uuml;&szlig;e'),
      'meta-utf8.html': page('<meta charset="UTF-8">'),
      'bom.html': `\ufeff${page('')}`,
    });
    const utf16 = (text: string, bom: number[], le: boolean) => {
      const body = Buffer.from(text, 'utf16le');
      if (!le) body.swap16();
      return Buffer.concat([Buffer.from(bom), body]);
    };
    await writeFile(join(dist, 'utf16le.html'), utf16(page('<meta charset="utf-8">'), [0xff, 0xfe], true));
    await writeFile(join(dist, 'utf16be.html'), utf16(page('<meta charset="utf-8">'), [0xfe, 0xff], false));
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    const summary = await signSite(dist, options);
    const outcome = Object.fromEntries(summary.pages.map((p) => [p.path, [p.outcome, p.error ?? '']]));
    expect(outcome).toEqual({
      'ascii.html': ['signed', ''],
      'bom.html': ['signed', ''],
      'meta-utf8.html': ['signed', ''],
      'iso-2022-jp.html': [
        'refused',
        'the page declares the character encoding iso-2022-jp (at byte 27): browsers decode it as that, not as UTF-8',
      ],
      'cp1252.html': [
        'refused',
        'the page declares the character encoding windows-1252 (at byte 27): browsers decode it as that, not as UTF-8',
      ],
      'undeclared.html': [
        'refused',
        expect.stringMatching(
          /declares no character encoding .* declare `<meta charset="utf-8">` within its first 1024 bytes$/,
        ),
      ],
      // Not UTF-8 at all: failed, as before, and the byte order mark named.
      'utf16le.html': [
        'failed',
        'not valid UTF-8: the page starts with a UTF-16LE byte order mark: browsers decode it as UTF-16LE, not as UTF-8',
      ],
      'utf16be.html': ['failed', expect.stringMatching(/^not valid UTF-8: .*UTF-16BE byte order mark/)],
    });
    expect(await readFile(join(dist, 'cp1252.html'), 'utf8')).not.toContain('siegel-page/2');
    expect(formatSummary(summary)).toContain(
      '  refused  cp1252.html: the page declares the character encoding windows-1252',
    );
  });
});
