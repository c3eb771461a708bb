import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSignCache } from '../src/cache/sign-cache.js';
import { LocalKeySigner } from '../src/index.js';
import { PARSER_REVISION } from '../src/page/parse.js';

// What `.sign-cache.json` may hold (src/cache/cache-file-schema.ts), seen through readSignCache: a bad
// entry costs only itself, odd header fields read as "none", and nothing in the file makes reading throw.

let dir: string;
let file: string;
let event: NostrEvent;
let pubkey: string;
const hash = 'ab'.repeat(32);
const site = 'https://example.com';
const header = () => ({ pubkey, site, selector: 'main' });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'siegel-cache-schema-'));
  file = join(dir, '.sign-cache.json');
  const signer = new LocalKeySigner('3'.repeat(64));
  pubkey = await signer.getPublicKey();
  [event] = (await signer.signEvents([{ kind: 1063, created_at: 1, content: 'x', tags: [['x', hash]] }])) as [
    NostrEvent,
  ];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A cache file as writeSignCache writes it, with `changes` over its fields. */
function cacheFile(pages: Record<string, unknown>, changes: Record<string, unknown> = {}): string {
  return JSON.stringify({
    spec: 'siegel-page/2',
    version: 1,
    parser: PARSER_REVISION,
    pubkey,
    site,
    selector: 'main',
    relays: [],
    pages,
    ...changes,
  });
}

describe('the .sign-cache.json schema', () => {
  it('drops every entry of the wrong shape, counted in one warning, and never throws', async () => {
    const good = { hash, event, fingerprint: 'f', insertAt: 3 };
    const bad: Record<string, unknown> = {
      null: null,
      array: [good],
      text: 'entry',
      'no-hash': { ...good, hash: undefined },
      'upper-hash': { ...good, hash: hash.toUpperCase() },
      'no-fingerprint': { ...good, fingerprint: 7 },
      'fractional-offset': { ...good, insertAt: 1.5 },
      // A `null` range made reading throw (`range.start` of null) before the schema.
      'null-block': { ...good, existingBlock: null },
      'reversed-block': { ...good, existingBlock: { start: 9, end: 2 } },
      'text-block': { ...good, existingBlock: { start: '1', end: 2 } },
      'null-byte-place': { ...good, bytePlace: null },
      'byte-place-without-offset': { ...good, bytePlace: {} },
      'byte-place-null-block': { ...good, bytePlace: { insertAt: 1, existingBlock: null } },
      'short-signature': { ...good, event: { ...event, sig: event.sig.slice(2) } },
      'event-text': { ...good, event: JSON.stringify(event) },
    };
    await writeFile(file, cacheFile({ 'good.html': good, ...bad }));
    const { cache, warning } = await readSignCache(file, header());
    expect([...cache.pages.keys()]).toEqual(['good.html']);
    expect(warning).toBe(`Ignored ${Object.keys(bad).length} malformed entries in the cache \`${file}\`.`);
  });

  it('keeps an entry as it was read: optional fields, and fields it does not know', async () => {
    const entry = {
      hash,
      event,
      fingerprint: 'f',
      insertAt: 30,
      existingBlock: { start: 10, end: 20 },
      bytePlace: { insertAt: 31, existingBlock: { start: 11, end: 21 } },
      signedFingerprint: 'e'.repeat(64),
      later: { field: true },
    };
    await writeFile(file, cacheFile({ 'a.html': entry }));
    const { cache, warning } = await readSignCache(file, header());
    expect(warning).toBeUndefined();
    expect(cache.pages.get('a.html')).toEqual(entry);
  });

  it('reads header lists that are not arrays as none, and a cache without `parser` as revision 1', async () => {
    const entry = { hash, event, fingerprint: 'f', insertAt: 3, signedFingerprint: 's' };
    await writeFile(file, cacheFile({ 'a.html': entry }, { mirrors: 'https://mirror.example', relays: 7 }));
    const lists = await readSignCache(file, { ...header(), mirrors: [], relays: ['wss://relay.example'] });
    expect(lists.notice).toBeUndefined();
    expect(lists.relaysChanged).toBe(true);
    expect(lists.cache.pages.get('a.html')).not.toHaveProperty('signedFingerprint');

    await writeFile(file, cacheFile({ 'a.html': entry }, { parser: undefined }));
    const old = await readSignCache(file, header());
    expect(old.parserChanged).toBe(true); // PARSER_REVISION is past 1
    expect(old.cache.pages.get('a.html')?.fingerprint).toBe('');
  });

  it('takes a `pages` that is not an object as no pages, without a warning', async () => {
    for (const pages of [null, 'a.html', 3]) {
      await writeFile(file, cacheFile({}, { pages }));
      const result = await readSignCache(file, header());
      expect([result.cache.pages.size, result.warning, result.notice], String(pages)).toEqual([
        0,
        undefined,
        undefined,
      ]);
    }
  });
});
