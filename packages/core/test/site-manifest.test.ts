// Issue 36: the site manifest's format (manifest/): site ids, addresses, the paths a page URL can be, the
// newest of several manifests, and both layouts written and read back.
import { createHash } from 'node:crypto';
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import type { NostrEvent } from '../src/index.js';
import {
  layOutManifest,
  type ManifestInput,
  readManifestBlob,
  signedEventBytes,
} from '../src/manifest/manifest-layout.js';
import {
  deriveSiteId,
  INLINE_LIMITS,
  isNameablePath,
  isSiteId,
  manifestAddress,
  manifestPathsFor,
  newestManifest,
  parseManifestAddress,
  RELAY_LIMITS,
  readManifest,
} from '../src/manifest/site-manifest.js';

const key = generateSecretKey();
const pubkey = getPublicKey(key);
const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const eventId = (n: number) => n.toString(16).padStart(64, '0');

function site(pageCount: number, loads: string[] = ['script /app.js']): ManifestInput {
  const files = new Map<string, string>([['/app.js', hex('app')]]);
  const pages = new Map<string, { eventId: string; loads: string[] }>();
  for (let i = 0; i < pageCount; i++) {
    const path = `/blog/post-${i}/index.html`;
    files.set(path, hex(path));
    pages.set(path, { eventId: eventId(i + 1), loads });
  }
  return {
    kind: 35128,
    d: 'blog-abcd',
    siteUrl: 'https://x.com/',
    title: 'X',
    servers: ['https://b.example'],
    files,
    pages,
  };
}

const sign = (kind: number, tags: string[][], createdAt = 1000) =>
  finalizeEvent({ kind, created_at: createdAt, tags, content: '' }, key);

describe('site ids', () => {
  it.each([
    ['https://www.example.com/', /^example-[0-9a-z]{4}$/],
    ['https://blog.x.com', /^blog-[0-9a-z]{4}$/],
    ['https://user.github.io/proj-a/', /^proj-a-[0-9a-z]{4}$/],
    ['https://x.com/Some_Very%20Long--Name/', /^some-ver-[0-9a-z]{4}$/],
    ['https://x.com/über/', /^ber-[0-9a-z]{4}$/],
    ['https://www/', /^site-[0-9a-z]{4}$/],
    ['https://x.com/a-------b/', /^a-b-[0-9a-z]{4}$/],
    ['https://x.com/abcdefg-hij/', /^abcdefg-[0-9a-z]{4}$/],
  ])('%s → %s, allowed by NIP-5A', (url, shape) => {
    const id = deriveSiteId(url);
    expect(id).toMatch(shape);
    expect(isSiteId(id)).toBe(true);
  });

  it('tells apart sites of one key whose slugs agree (the issue’s pairs), and is stable across spellings', () => {
    const pairs = [
      ['https://www.a.com/', 'https://www.b.org/'],
      ['https://user.github.io/proj-a/', 'https://user.github.io/proj-b/'],
      ['https://blog.x.com/', 'https://blog.y.org/'],
      ['https://x.github.io/docs/', 'https://y.github.io/docs/'],
    ];
    for (const [a, b] of pairs) expect(deriveSiteId(a as string)).not.toBe(deriveSiteId(b as string));
    expect(deriveSiteId('https://x.github.io/docs')).toBe(deriveSiteId('https://x.github.io/docs/'));
  });

  it.each([
    ['blog', true],
    ['a', true],
    ['abcdefghijklm', true],
    ['abcdefghijklmn', false],
    ['blog-', false],
    ['Blog', false],
    ['', false],
    ['a_b', false],
  ])('isSiteId(%j) is %s', (value, ok) => {
    expect(isSiteId(value)).toBe(ok);
  });
});

describe('addresses', () => {
  it('writes and reads both kinds', () => {
    expect(manifestAddress(35128, pubkey, 'blog-abcd')).toBe(`35128:${pubkey}:blog-abcd`);
    expect(manifestAddress(15128, pubkey, 'ignored')).toBe(`15128:${pubkey}:`);
    expect(parseManifestAddress(`35128:${pubkey}:blog-abcd`)).toEqual({
      kind: 35128,
      pubkey,
      d: 'blog-abcd',
    });
    expect(parseManifestAddress(`15128:${pubkey}:`)).toEqual({ kind: 15128, pubkey, d: undefined });
  });
  it.each([
    `15128:${pubkey}:x`,
    `35128:${pubkey}:`,
    `35128:${pubkey}:Bad`,
    `1063:${pubkey}:x`,
    '35128:ab:x',
    'x',
  ])('refuses %s', (a) => {
    expect(parseManifestAddress(a)).toBeUndefined();
  });
});

describe('manifestPathsFor', () => {
  it.each([
    ['https://x.com/', 'https://x.com/', ['/index.html']],
    ['https://x.com/blog/', 'https://x.com/', ['/blog/index.html']],
    ['https://x.com/blog', 'https://x.com/', ['/blog', '/blog.html', '/blog/index.html']],
    ['https://x.com/a.html?q#f', 'https://x.com/', ['/a.html']],
    ['https://u.github.io/p/%C3%BC/', 'https://u.github.io/p/', ['/ü/index.html']],
    ['https://u.github.io/other/', 'https://u.github.io/p/', []],
    ['not a url', 'https://x.com/', []],
  ])('%s in %s → %j', (page, siteUrl, paths) => {
    expect(manifestPathsFor(page, siteUrl)).toEqual(paths);
  });
  it('knows which paths NIP-5A can name', () => {
    expect(['/a.html', '/a/b.tar.gz', '/.well-known/x.json'].map(isNameablePath)).toEqual([true, true, true]);
    expect(['/CNAME', '/_redirects', '/.nojekyll', '/a/'].map(isNameablePath)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('newestManifest', () => {
  it('takes the greatest created_at, then the lowest id on a tie', () => {
    const a = { id: 'b'.repeat(64), created_at: 5 } as NostrEvent;
    const b = { id: 'a'.repeat(64), created_at: 5 } as NostrEvent;
    const c = { id: '0'.repeat(64), created_at: 4 } as NostrEvent;
    expect(newestManifest([a, b, c])).toBe(b);
    expect(newestManifest([c, a])).toBe(a);
    expect(newestManifest([])).toBeUndefined();
  });
});

describe('layouts: written and read back', () => {
  it('lays a small site out inline, every file and page read back', () => {
    const input = site(3);
    const { layout, tags, blob } = layOutManifest(input);
    expect(layout).toBe('inline');
    expect(blob).toBeUndefined();
    expect(tags.slice(0, 4)).toEqual([
      ['d', 'blog-abcd'],
      ['url', 'https://x.com/'],
      ['title', 'X'],
      ['server', 'https://b.example'],
    ]);
    const paths = tags.filter((tag) => tag[0] === 'path').map((tag) => tag[1]);
    expect(paths).toEqual([...paths].sort());
    const event = sign(35128, tags);
    expect(verifyEvent(event)).toBe(true);
    const manifest = readManifest(event);
    expect(manifest).toMatchObject({
      kind: 35128,
      pubkey,
      d: 'blog-abcd',
      siteUrl: 'https://x.com/',
      blob: undefined,
    });
    expect(manifest.servers).toEqual(['https://b.example']);
    expect(manifest.files).toEqual(input.files);
    expect(manifest.pages.get('/blog/post-1/index.html')).toEqual({
      path: '/blog/post-1/index.html',
      eventId: eventId(2),
      loads: ['script /app.js'],
    });
    expect(manifest.pagesByEvent.get(eventId(3))?.path).toBe('/blog/post-2/index.html');
    expect(manifest.files.get('/app.js')).toBe(hex('app'));
    expect(manifest.pages.has('/app.js')).toBe(false);
  });

  it('lays a root site out without d', () => {
    const { tags } = layOutManifest({ ...site(1), kind: 15128 });
    expect(tags.some((tag) => tag[0] === 'd')).toBe(false);
    expect(readManifest(sign(15128, tags))).toMatchObject({ kind: 15128, d: undefined });
  });

  it('lays a 3 000-page site out as a blob within strfry’s limits; the blob gives back every file', () => {
    const input = site(3000);
    const { layout, tags, blob } = layOutManifest(input);
    expect(layout).toBe('blob');
    if (!blob) throw new Error('no blob');
    expect(blob.path).toBe(`verify/manifest-${blob.sha256}.json`);
    expect(blob.sha256).toBe(hex(blob.text));
    const event = sign(35128, tags);
    expect(JSON.stringify(event).length).toBeLessThanOrEqual(RELAY_LIMITS.maxEventBytes);
    expect(tags).toContainEqual(['path', `/${blob.path}`, blob.sha256]);
    const head = readManifest(event);
    expect(head.blob).toEqual({ sha256: blob.sha256, bytes: blob.bytes });
    expect(head.files.size).toBe(1);
    const blobTags = readManifestBlob(
      new TextEncoder().encode(blob.text),
      head.blob as { sha256: string; bytes: number },
    );
    expect(blobTags.some((tag) => tag[0] === 'd')).toBe(false);
    const full = readManifest(event, blobTags);
    for (const [path, sha] of input.files) expect(full.files.get(path)).toBe(sha);
    expect(full.pages.size).toBe(3000);
    expect(full.pagesByEvent.get(eventId(3000))?.loads).toEqual(['script /app.js']);
  });

  it('chooses the blob at the inline limits, and for one load list over 1 024 bytes', () => {
    let pages = 1;
    while (layOutManifest(site(pages + 1)).layout === 'inline') pages++;
    const last = layOutManifest(site(pages)).tags;
    expect(signedEventBytes(35128, last)).toBeLessThanOrEqual(INLINE_LIMITS.maxEventBytes);
    expect(last.length).toBeLessThanOrEqual(INLINE_LIMITS.maxTags);
    expect(layOutManifest(site(1, [`script https://cdn.example/${'a'.repeat(1100)}.js`])).layout).toBe(
      'blob',
    );
  });

  it('refuses a blob whose bytes, length or format are not what the event names', () => {
    const { blob } = layOutManifest(site(3000));
    if (!blob) throw new Error('no blob');
    const bytes = new TextEncoder().encode(blob.text);
    const changed = bytes.slice();
    changed[10] = (changed[10] as number) ^ 1;
    expect(() => readManifestBlob(changed, blob)).toThrow(/SHA-256/);
    expect(() => readManifestBlob(bytes.slice(1), blob)).toThrow(/bytes/);
    const other = new TextEncoder().encode('{"siegel":"x","tags":[]}');
    expect(() =>
      readManifestBlob(other, { sha256: hex('{"siegel":"x","tags":[]}'), bytes: other.length }),
    ).toThrow(/site-manifest\/1/);
  });

  it('refuses an event of another kind', () => {
    expect(() => readManifest(sign(1063, []))).toThrow(/not a site manifest/);
  });
});
