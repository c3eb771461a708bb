// Issue 35, items 2 and 3, at signing: the event records the base URL a `<base href>` sets (`base` tag) and
// the title (`alt`), read as every verifier reads them; the sign cache re-signs a page whose title or base
// changed though its hash did not, and — once, by the parser revision — a page signed with a `<base href>`
// before the `base` tag existed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { describe, expect, it } from 'vitest';
import { LocalKeySigner, signSite, verifySite } from '../src/index.js';
import { readSignatureBlock } from '../src/page/signature-block-read.js';
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

const BASED = 'docs/index.html';
const based = (base: string, title = 'Docs') =>
  `<!doctype html><html><head><base href="${base}"><title>${title}</title></head><body><main><p>See <a href="docs/next/">next</a>.</p></main></body></html>\n`;
const PAGES = { ...FIXTURE_PAGES, [BASED]: based('/') };

async function eventOf(dist: string, path: string): Promise<NostrEvent> {
  const id = readSignatureBlock(await readFile(join(dist, path), 'utf8'))?.eventId;
  return JSON.parse(await readFile(join(dist, 'verify', `${id}.json`), 'utf8')) as NostrEvent;
}
const tag = (event: NostrEvent, name: string) => event.tags.find((candidate) => candidate[0] === name)?.[1];

describe('signing records the title and the base URL, and re-signs when they change', () => {
  it('records `base` only for a page whose <base href> sets one, and the signed site verifies', async () => {
    const { dist, cacheFile } = await createProject(PAGES);
    const options = { site: SITE, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, { ...options, signer: new CountingSigner(KEY_A) });
    const event = await eventOf(dist, BASED);
    expect(tag(event, 'base')).toBe('https://example.com/');
    expect(tag(event, 'alt')).toBe('Docs');
    expect(tag(await eventOf(dist, 'about.html'), 'base')).toBeUndefined();
    const report = await verifySite(dist, { site: SITE, parseWorkers: 0 });
    expect(report).toMatchObject({ ok: true, invalid: 0, valid: 5 });
  });

  it('a changed <title> or <base href> is signed again though <main> is the same; nothing else is', async () => {
    const { root, dist, cacheFile } = await createProject(PAGES);
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, options);
    const next = join(root, 'next');
    const changed = {
      ...PAGES,
      'about.html': (FIXTURE_PAGES['about.html'] as string).replace('About "us"', 'About them'),
      [BASED]: based('/docs/'),
    };
    await writePages(next, changed);
    signer.events = 0;
    const summary = await signSite(next, options);
    expect(summary).toMatchObject({ signed: 2, unchanged: 3 });
    expect(signer.events).toBe(2);
    expect(summary.pages.filter((page) => page.outcome === 'signed').map((page) => page.path)).toEqual(
      expect.arrayContaining(['about.html', BASED]),
    );
    expect(tag(await eventOf(next, 'about.html'), 'alt')).toBe('About them');
    expect(tag(await eventOf(next, BASED), 'base')).toBe('https://example.com/docs/');
    expect(await verifySite(next, { site: SITE, parseWorkers: 0 })).toMatchObject({ ok: true, invalid: 0 });
    // The base removed: the new event has no `base` tag.
    const third = join(root, 'third');
    await writePages(third, { ...changed, [BASED]: based('/docs/').replace('<base href="/docs/">', '') });
    signer.events = 0;
    expect(await signSite(third, options)).toMatchObject({ signed: 1 });
    expect(tag(await eventOf(third, BASED), 'base')).toBeUndefined();
  });

  it('a cache of an older parser revision, whose event for a <base href> page has no `base` tag: that page alone is re-signed', async () => {
    const { root, dist, cacheFile } = await createProject(PAGES);
    const signer = new CountingSigner(KEY_A);
    const options = { site: SITE, signer, cacheFile, logger: collectingLogger().logger, progress: false };
    await signSite(dist, options);
    // The cache as revision 3 left it: the page's event signed without a `base` tag.
    const written = JSON.parse(await readFile(cacheFile, 'utf8'));
    const { kind, created_at, tags, content } = written.pages[BASED].event as NostrEvent;
    const [old] = await new LocalKeySigner(KEY_A).signEvents([
      { kind, created_at, content, tags: tags.filter((candidate) => candidate[0] !== 'base') },
    ]);
    written.pages[BASED] = { ...written.pages[BASED], event: old };
    await writeFile(cacheFile, JSON.stringify({ ...written, parser: 3 }));
    const again = join(root, 'again');
    await writePages(again, PAGES);
    signer.events = 0;
    const summary = await signSite(again, options);
    expect(summary).toMatchObject({ signed: 1, unchanged: 4 });
    expect(summary.pages.find((page) => page.outcome === 'signed')?.path).toBe(BASED);
    expect(tag(await eventOf(again, BASED), 'base')).toBe('https://example.com/');
  });
});
