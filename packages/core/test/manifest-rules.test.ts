// The rule book against a site manifest (issue 36): currency (page.superseded, page.withdrawn,
// manifest.unchecked, manifest.missing), assets (asset.unlisted, asset.changed, manifest.bytes_differ) and
// the nsite gateway address, decided by judgePage from hand-built manifest events signed with a test key.
// The verifiers that gather this evidence run in test/site/manifest-verify.test.ts.
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { analyzePage, createPageEvent, type NostrEvent } from '../src/index.js';
import { readManifest, type SiteManifest } from '../src/manifest/site-manifest.js';
import { isGatewayAddress, nsiteLabel } from '../src/verify/page-address.js';
import { judgePage, type ManifestEvidence } from '../src/verify/rules.js';

const KEY = Uint8Array.from(Buffer.from('6'.repeat(64), 'hex'));
const OTHER_KEY = Uint8Array.from(Buffer.from('7'.repeat(64), 'hex'));
const PUBKEY = getPublicKey(KEY);
const D = 'example-ab12';
const A = `35128:${PUBKEY}:${D}`;
const SITE = 'https://example.com/';
const HTML = '<!doctype html><title>T</title><main><p>Signed words</p></main>';
const PAGE_URL = 'https://example.com/blog/x/';
const PAGE_PATH = '/blog/x/index.html';
const LOADS = ['script /assets/app.js', 'style sha256-abc='];

function pageEvent(createdAt: number, extraTags: string[][] = [['a', A]]): NostrEvent {
  const hash = analyzePage(HTML).hash as string;
  const template = createPageEvent({ hash, url: PAGE_URL, title: 'T', createdAt });
  return finalizeEvent({ ...template, tags: [...template.tags, ...extraTags] }, KEY);
}

/** A manifest event as the design fixes it: d, url, path tags (page paths with their event id), loads. */
function manifestOf(
  createdAt: number,
  pages: Array<{ path: string; eventId: string; loads?: string[] }>,
  files: Record<string, string> = {},
  key = KEY,
): SiteManifest {
  const tags: string[][] = [
    ['d', D],
    ['url', SITE],
  ];
  const paths: string[][] = [];
  for (const [path, sha] of Object.entries(files)) paths.push(['path', path, sha]);
  for (const page of pages) paths.push(['path', page.path, 'f'.repeat(64), page.eventId]);
  paths.sort((x, y) => ((x[1] as string) < (y[1] as string) ? -1 : 1));
  tags.push(...paths);
  for (const page of pages) if (page.loads?.length) tags.push(['loads', page.path, ...page.loads]);
  return readManifest(finalizeEvent({ kind: 35128, created_at: createdAt, tags, content: '' }, key));
}

function judge(event: NostrEvent, manifest: ManifestEvidence, loads: string[] = LOADS, address = PAGE_URL) {
  const result = judgePage({
    readPage: (spec) => ({ ...analyzePage(HTML, { spec }), loads }),
    block: { eventId: event.id, pubkey: event.pubkey },
    event: { found: event },
    address,
    manifest,
  });
  return { codes: [result.verdict, ...result.problems.map((problem) => problem.code)], result };
}

const RELAY = 'wss://relay.example.com';

describe('judgePage with a site manifest: currency', () => {
  const v1 = pageEvent(1_767_225_600);
  const v2 = pageEvent(1_767_312_000);
  const m1 = manifestOf(1_767_225_600, [{ path: PAGE_PATH, eventId: v1.id, loads: LOADS }]);
  const m2 = manifestOf(1_767_312_000, [{ path: PAGE_PATH, eventId: v2.id, loads: LOADS }]);

  it('is valid when the newest manifest from the verifier’s relays lists the page’s event', () => {
    const evidence = { newest: m1, answered: [RELAY], fromOwnRelays: m1, pageNamed: m1 };
    expect(judge(v1, evidence).codes).toEqual(['valid']);
  });

  it('page.superseded: the newest lists another event at this path, with the newer date', () => {
    const { codes, result } = judge(v1, { newest: m2, answered: [RELAY], fromOwnRelays: m2, pageNamed: m1 });
    expect(codes).toEqual(['invalid', 'page.superseded']);
    expect(result.problems[0]?.message).toContain('2026-01-02 00:00 UTC');
    expect(result.problems[0]?.message).toContain(v2.id);
  });

  it('page.superseded also when only a page-named relay or the site’s copy holds the newer one', () => {
    // A newer manifest signed by the key proves the page old, wherever it was found.
    expect(judge(v1, { newest: m2, answered: [], pageNamed: m1 }).codes).toEqual([
      'invalid',
      'page.superseded',
    ]);
  });

  it('page.withdrawn: the newest no longer lists this path', () => {
    const other = manifestOf(1_767_312_000, [{ path: '/blog/y/index.html', eventId: v2.id }]);
    expect(
      judge(v1, { newest: other, answered: [RELAY], fromOwnRelays: other, pageNamed: m1 }).codes,
    ).toEqual(['invalid', 'page.withdrawn']);
  });

  it('manifest.unchecked: no relay of the verifier’s answered — the verdict is kept, the reason given', () => {
    const { codes, result } = judge(v1, {
      newest: m1,
      answered: [],
      pageNamed: m1,
      why: 'no relay of the verifier’s answered: `wss://down.example` (cannot connect)',
    });
    expect(codes).toEqual(['valid', 'manifest.unchecked']);
    expect(result.problems[0]?.message).toContain('wss://down.example');
  });

  it('manifest.unchecked: the event has no `a` tag (signed before manifests)', () => {
    const old = pageEvent(1_767_225_600, []);
    expect(judge(old, { newest: m1, answered: [RELAY], fromOwnRelays: m1, pageNamed: m1 }).codes).toEqual([
      'valid',
      'manifest.unchecked',
    ]);
  });

  it('manifest.missing: the verifier’s relays answered but hold no manifest', () => {
    expect(judge(v1, { newest: m1, answered: [RELAY], pageNamed: m1 }).codes).toEqual([
      'valid',
      'manifest.missing',
    ]);
    expect(judge(v1, { newest: undefined, answered: [RELAY], pageNamed: undefined }).codes).toEqual([
      'valid',
      'manifest.missing',
    ]);
  });

  it('a manifest signed by another key does not count', () => {
    const forged = manifestOf(1_767_400_000, [{ path: PAGE_PATH, eventId: 'e'.repeat(64) }], {}, OTHER_KEY);
    expect(judge(v1, { newest: forged, answered: [RELAY], fromOwnRelays: m1, pageNamed: m1 }).codes).toEqual([
      'valid',
    ]);
  });
});

describe('judgePage with a site manifest: assets', () => {
  const v1 = pageEvent(1_767_225_600);
  const APP = 'a'.repeat(64);
  const PAGE_SHA = 'b'.repeat(64);
  const m = manifestOf(1_767_225_600, [{ path: PAGE_PATH, eventId: v1.id, loads: LOADS }], {
    '/assets/app.js': APP,
  });
  const base = { newest: m, answered: [RELAY], fromOwnRelays: m, pageNamed: m };

  it('asset.unlisted names an inline script and another origin’s script the manifest does not list', () => {
    const { codes, result } = judge(v1, base, [
      ...LOADS,
      'script sha256-NEW=',
      'script https://evil.example/x.js',
    ]);
    expect(codes).toEqual(['invalid', 'asset.unlisted', 'asset.unlisted']);
    expect(result.problems.map((problem) => problem.message).join('\n')).toContain(
      'https://evil.example/x.js',
    );
  });

  it('asset.changed names a file whose bytes are not the manifest’s hash', () => {
    const { codes, result } = judge(v1, {
      ...base,
      assets: [{ path: '/assets/app.js', sha256: 'c'.repeat(64) }],
    });
    expect(codes).toEqual(['invalid', 'asset.changed']);
    expect(result.problems[0]?.message).toContain('/assets/app.js');
    expect(judge(v1, { ...base, assets: [{ path: '/assets/app.js', sha256: APP }] }).codes).toEqual([
      'valid',
    ]);
  });

  it('manifest.bytes_differ only when the event and the loads match', () => {
    const files = manifestOf(1_767_225_600, [{ path: PAGE_PATH, eventId: v1.id, loads: LOADS }]);
    const sha = files.files.get(PAGE_PATH) as string;
    const evidence = { newest: files, answered: [RELAY], fromOwnRelays: files, pageNamed: files };
    expect(judge(v1, { ...evidence, pageSha256: sha }).codes).toEqual(['valid']);
    expect(judge(v1, { ...evidence, pageSha256: PAGE_SHA }).codes).toEqual([
      'valid',
      'manifest.bytes_differ',
    ]);
    expect(judge(v1, { ...evidence, pageSha256: PAGE_SHA }, [...LOADS, 'script sha256-X=']).codes).toEqual([
      'invalid',
      'asset.unlisted',
    ]);
  });

  it('no manifest.bytes_differ beside page.superseded: the old bytes are the point', () => {
    const v2 = pageEvent(1_767_312_000);
    const newer = manifestOf(1_767_312_000, [{ path: PAGE_PATH, eventId: v2.id, loads: [] }]);
    const evidence = {
      newest: newer,
      answered: [RELAY],
      fromOwnRelays: newer,
      pageNamed: m,
      pageSha256: PAGE_SHA,
    };
    expect(judge(v1, evidence).codes).toEqual(['invalid', 'page.superseded']);
  });

  it('an old page is judged by the manifest that names it (the site’s copy) while superseded', () => {
    const v2 = pageEvent(1_767_312_000);
    const newer = manifestOf(1_767_312_000, [{ path: PAGE_PATH, eventId: v2.id, loads: [] }]);
    expect(
      judge(v1, { newest: newer, answered: [RELAY], fromOwnRelays: newer, pageNamed: m }, [
        ...LOADS,
        'script sha256-X=',
      ]).codes,
    ).toEqual(['invalid', 'page.superseded', 'asset.unlisted']);
  });
});

describe('the nsite gateway address', () => {
  const v1 = pageEvent(1_767_225_600);
  const m = manifestOf(1_767_225_600, [{ path: PAGE_PATH, eventId: v1.id, loads: LOADS }]);
  const gateway = `https://${nsiteLabel(m)}.nsite.example/blog/x/`;
  const evidence = { newest: m, answered: [RELAY], fromOwnRelays: m, pageNamed: m };

  it('a page at the site’s gateway host is address-valid when the newest manifest lists it there', () => {
    expect(nsiteLabel(m)).toMatch(/^[0-9a-z]{50}example-ab12$/);
    expect(isGatewayAddress(gateway, v1, m)).toBe(true);
    expect(judge(v1, evidence, LOADS, gateway).codes).toEqual(['valid']);
  });

  it('not at another path, another label, or without the manifest', () => {
    expect(judge(v1, evidence, LOADS, `https://${nsiteLabel(m)}.nsite.example/blog/y/`).codes).toContain(
      'event.url',
    );
    expect(judge(v1, evidence, LOADS, 'https://npub1x.nsite.example/blog/x/').codes).toContain('event.url');
    expect(isGatewayAddress(gateway, v1, undefined)).toBe(false);
    const root = { ...m, kind: 15128 as const, d: undefined };
    expect(nsiteLabel(root)).toMatch(/^npub1/);
  });
});
