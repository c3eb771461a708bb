import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CacheJournal } from '../src/cache/journal.js';
import { fingerprintFile, readSignCache, type SignCache, writeSignCache } from '../src/cache/sign-cache.js';
import { LocalKeySigner } from '../src/index.js';
import { PARSER_REVISION } from '../src/page/parse.js';

let dir: string;
let file: string;
let event: NostrEvent;
let pubkey: string;
const hash = 'ab'.repeat(32);
const header = () => ({ pubkey, site: 'https://example.com', selector: 'main' });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-cache-'));
  file = join(dir, '.sign-cache.json');
  const signer = new LocalKeySigner('3'.repeat(64));
  pubkey = await signer.getPublicKey();
  [event] = (await signer.signEvents([{ kind: 1063, created_at: 1, content: 'x', tags: [['x', hash]] }])) as [
    NostrEvent,
  ];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function cacheWith(entries: Record<string, unknown>): SignCache {
  return { ...header(), pages: new Map(Object.entries(entries)) } as SignCache;
}

describe('sign cache', () => {
  it('round-trips through an atomic write and leaves no temp file', async () => {
    const entry = { hash, event, fingerprint: fingerprintFile('raw'), insertAt: 10 };
    await writeSignCache(
      file,
      cacheWith({ 'b.html': entry, 'a.html': { ...entry, existingBlock: { start: 1, end: 5 } } }),
    );
    expect(await readdir(dir)).toEqual(['.sign-cache.json']);
    const text = await readFile(file, 'utf8');
    expect(Object.keys(JSON.parse(text).pages)).toEqual(['a.html', 'b.html']);
    const { cache, warning, notice } = await readSignCache(file, header());
    expect(warning).toBeUndefined();
    expect(notice).toBeUndefined();
    expect(cache.pages.get('b.html')).toEqual(entry);
  });

  it('a missing file is an empty cache; a corrupt one a warning, never a throw', async () => {
    expect((await readSignCache(file, header())).cache.pages.size).toBe(0);
    for (const corrupt of ['', '{', '[]', 'null', '"text"', '\u0000\u0001']) {
      await writeFile(file, corrupt);
      const result = await readSignCache(file, header());
      expect(result.cache.pages.size, corrupt).toBe(0);
      expect(result.warning, corrupt).toMatch(/is corrupt/);
    }
  });

  it('reads any JSON layout of the file, entry by entry, and writes what it read byte for byte (issue 24: packed pages)', async () => {
    // A path and a content with quotes, backslashes and brackets: the reader scans entries without parsing
    // the whole file, so it must find each entry's end exactly where JSON.parse would.
    const tricky = { ...event, content: 'a "quoted" \\ path } ] { [ \\"' };
    const entry = { hash, event: tricky, fingerprint: fingerprintFile('raw'), insertAt: 3 };
    const cacheData = {
      spec: 'siegel-page/2',
      version: 1,
      parser: PARSER_REVISION,
      ...header(),
      relays: [],
      pages: { 'dir/"odd" \\ }.html': entry, 'b.html': { ...entry, insertAt: 4 } },
    };
    // Pretty-printed, pages first: not the layout Siegel writes.
    const { pages, ...rest } = cacheData;
    await writeFile(file, `  ${JSON.stringify({ pages, ...rest }, null, 2)}\n`);
    const { cache, warning } = await readSignCache(file, header());
    expect(warning).toBeUndefined();
    expect(cache.pages.get('dir/"odd" \\ }.html')).toEqual(entry);
    expect(cache.pages.get('b.html')?.insertAt).toBe(4);
    await writeSignCache(file, cache);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(cacheData);
    // A file cut anywhere is corrupt, never half read.
    const whole = await readFile(file, 'utf8');
    for (const cut of [1, 40, whole.length - 3, whole.length - 2]) {
      await writeFile(file, whole.slice(0, cut));
      expect((await readSignCache(file, header())).warning, String(cut)).toMatch(/is corrupt/);
    }
  });

  it('a cache for other mirrors is not used (the events’ fallback tags change); one without mirrors means none', async () => {
    const entry = { hash, event, fingerprint: 'f', insertAt: 0 };
    // Written without mirrors: no `mirrors` field, as every cache before mirrors existed.
    await writeSignCache(file, cacheWith({ 'a.html': entry }));
    expect(JSON.parse(await readFile(file, 'utf8'))).not.toHaveProperty('mirrors');
    expect((await readSignCache(file, { ...header(), mirrors: [] })).cache.pages.size).toBe(1);
    const added = await readSignCache(file, { ...header(), mirrors: ['https://mirror.example'] });
    expect(added.cache.pages.size).toBe(0);
    expect(added.notice).toBe(
      `The cache \`${file}\` was made for other mirrors (none; now https://mirror.example); re-signing all pages.`,
    );
    await writeSignCache(file, { ...cacheWith({ 'a.html': entry }), mirrors: ['https://mirror.example'] });
    expect(JSON.parse(await readFile(file, 'utf8')).mirrors).toEqual(['https://mirror.example']);
    const same = await readSignCache(file, { ...header(), mirrors: ['https://mirror.example'] });
    expect([same.cache.pages.size, same.notice]).toEqual([1, undefined]);
    for (const mirrors of [[], ['https://other.example'], ['https://mirror.example', 'https://b.example']]) {
      const result = await readSignCache(file, { ...header(), mirrors });
      expect(result.cache.pages.size, mirrors.join()).toBe(0);
      expect(result.notice, mirrors.join()).toMatch(/made for other mirrors .*re-signing all pages/);
    }
    // Nor is the journal of a run for other mirrors.
    await rm(file);
    const journal = new CacheJournal(file, { ...header(), mirrors: ['https://mirror.example'] });
    await journal.append([['b.html', entry]]);
    expect((await readSignCache(file, header())).cache.pages.size).toBe(0);
    expect(
      (await readSignCache(file, { ...header(), mirrors: ['https://mirror.example'] })).cache.pages.size,
    ).toBe(1);
    await journal.remove();
  });

  it('a cache for another key, site, selector or spec is not used, with a notice', async () => {
    const entry = { hash, event, fingerprint: 'f', insertAt: 0 };
    await writeSignCache(file, cacheWith({ 'a.html': entry }));
    const other = [
      { ...header(), pubkey: 'c'.repeat(64) },
      { ...header(), site: 'https://other.example' },
      { ...header(), selector: 'article' },
    ];
    for (const changed of other) {
      const result = await readSignCache(file, changed);
      expect(result.cache.pages.size).toBe(0);
      expect(result.notice).toMatch(/re-signing all pages/);
    }
    // A dry run without a token does not know the key: the cache is used as it is.
    expect((await readSignCache(file, { ...header(), pubkey: undefined })).cache.pages.size).toBe(1);
    const data = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...data, spec: 'siegel-page/0' }));
    expect((await readSignCache(file, header())).notice).toMatch(/another spec/);
  });

  it('drops malformed entries with a warning and keeps the good ones', async () => {
    const good = { hash, event, fingerprint: 'f', insertAt: 3 };
    await writeSignCache(
      file,
      cacheWith({
        'good.html': good,
        'bad-hash.html': { ...good, hash: 'nope' },
        'wrong-x.html': { ...good, hash: 'cd'.repeat(32) },
        'other-key.html': { ...good, event: { ...event, pubkey: 'd'.repeat(64) } },
        'no-offset.html': { ...good, insertAt: 'x' },
      }),
    );
    const { cache, warning } = await readSignCache(file, header());
    expect([...cache.pages.keys()]).toEqual(['good.html']);
    expect(warning).toMatch(/Ignored 4 malformed entries/);
  });

  it('folds in the journal of an interrupted run, skipping a torn last line and foreign journals', async () => {
    const entry = { hash, event, fingerprint: 'f', insertAt: 1 };
    await writeSignCache(file, cacheWith({ 'a.html': entry }));
    const journal = new CacheJournal(file, cacheWith({}));
    await journal.append([['b.html', { ...entry, insertAt: 2 }]]);
    await journal.append([['c.html', { ...entry, insertAt: 3 }]]);
    await writeFile(`${file}.journal`, `${await readFile(`${file}.journal`, 'utf8')}["d.html",{"hash":"ab`);
    const result = await readSignCache(file, header());
    expect(result.journal).toBe(true);
    expect([...result.cache.pages.keys()].sort()).toEqual(['a.html', 'b.html', 'c.html']);
    expect(result.cache.pages.get('c.html')?.insertAt).toBe(3);
    // The cache gone (first run killed): the journal alone still counts.
    await rm(file);
    expect((await readSignCache(file, header())).cache.pages.size).toBe(2);
    // A journal for another key is not used.
    expect((await readSignCache(file, { ...header(), pubkey: 'e'.repeat(64) })).cache.pages.size).toBe(0);
    await journal.remove();
    expect(await readdir(dir)).toEqual([]);
  });
});
