// Issue 36, acceptance 3 (the signing half): a site whose manifest cannot be one event. 3 000 tiny pages
// signed with a local key and published to the test relay, which enforces strfry's defaults (RELAY_LIMITS):
// the manifest takes layout blob, the relay accepts every event the run signs, and the blob read back
// (hash checked) lists every file. And the limits are real: the same list as one event, and an event one
// byte, one tag or one tag-value byte over each limit, are refused with strfry's `invalid: …`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner, RelayPublisher, signSite } from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';
import { finalizeEvent, verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readManifestBlob } from '../../packages/core/src/manifest/manifest-layout.js';
import {
  NSITE_NAMED_KIND,
  RELAY_LIMITS,
  readManifest,
} from '../../packages/core/src/manifest/site-manifest.js';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';
import { manifestFilesOf } from '../support/site-manifest-files.js';

// Signing and publishing 3 001 events: 16 s on the shared 2-core machine, 44 s with other engineers' test
// runs on it.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 30_000 });

const SITE = 'https://big.example.com';
const KEY = '3'.repeat(64);
const PAGES = 3_000;

let root: string;
let relay: RunningRelay;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-manifest-large-'));
  relay = await startRelay();
});

afterAll(async () => {
  await relay?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Publish `event` to the test relay alone; its answer. */
async function publishOne(event: NostrEvent): Promise<{ accepted: boolean; reason: string | undefined }> {
  const publisher = new RelayPublisher([relay.url]);
  try {
    const [result] = await publisher.publish([event]);
    return { accepted: result?.accepted.length === 1, reason: result?.failed[0]?.reason };
  } finally {
    publisher.close();
  }
}

describe('a 3 000-page site and a relay with strfry’s limits', () => {
  it('signs the manifest in layout blob; the relay takes every event; the blob lists every file', async () => {
    const dist = join(root, 'dist');
    for (let i = 0; i < PAGES; i++) {
      await mkdir(join(dist, 'p', String(i)), { recursive: true });
      await writeFile(
        join(dist, 'p', String(i), 'index.html'),
        `<!doctype html><title>P${i}</title><link rel="stylesheet" href="/site.css"><main><p>page ${i}</p></main>`,
      );
    }
    await writeFile(join(dist, 'site.css'), 'main { color: black }');
    const signer = new LocalKeySigner(KEY);
    const pubkey = await signer.getPublicKey();
    const summary = await signSite(dist, {
      site: SITE,
      signer,
      cacheFile: join(root, '.sign-cache.json'),
      relays: [relay.url],
      // Every answer is awaited (the default 5 s after the last page left 285 unconfirmed on a loaded machine).
      publishTimeoutMs: 120_000,
      logger: { info() {}, warn() {} },
      progress: false,
    });
    expect(summary).toMatchObject({ signed: PAGES, failed: 0 });
    expect(summary.manifest).toMatchObject({ signed: true, layout: 'blob' });
    // Every event of the run — the 3 000 pages' and the manifest's — taken by the relay.
    expect(summary.published).toMatchObject({ events: PAGES + 1, published: PAGES + 1, waiting: 0 });

    const text = await readFile(join(dist, 'verify', 'manifest.json'), 'utf8');
    const event = JSON.parse(text) as NostrEvent;
    expect(verifyEvent(JSON.parse(text))).toBe(true);
    expect(event.tags.length).toBeLessThan(10);
    expect(await queryRelay(relay.url, { kinds: [NSITE_NAMED_KIND], authors: [pubkey] })).toEqual([event]);
    const head = readManifest(event);
    expect(head.blob).toBeDefined();
    const blob = head.blob as { sha256: string; bytes: number };
    // The event stays valid NIP-5A: one path tag, naming the blob file by its hash.
    expect(head.files).toEqual(new Map([[`/verify/manifest-${blob.sha256}.json`, blob.sha256]]));
    const bytes = await readFile(join(dist, 'verify', `manifest-${blob.sha256}.json`));
    const tags = readManifestBlob(bytes, blob);
    const full = readManifest(event, tags);
    expect(full.pages.size).toBe(PAGES);
    expect(full.pages.get('/p/7/index.html')?.loads).toEqual(['style /site.css']);
    // The list is the output: every file but the per-event files and verify/manifest.json, with its hash
    // (the blob's own file comes from the event's path tag).
    expect(full.files).toEqual(await manifestFilesOf(dist));

    // The limit is real: the list as one event is refused by the relay (its first 2 000 tags: the whole list,
    // 1.1 MB, is over the relay's WebSocket message size too, and it would only close the connection).
    const inline = finalizeEvent(
      {
        kind: NSITE_NAMED_KIND,
        created_at: event.created_at + 1,
        tags: [['d', head.d as string], ...tags.slice(0, RELAY_LIMITS.maxTags)],
        content: '',
      },
      Buffer.from(KEY, 'hex'),
    );
    expect((await publishOne(inline)).reason).toMatch(/invalid: (event too large|too many tags)/);
  });

  it('refuses an event one byte, one tag or one tag-value byte over strfry’s defaults, takes one at them', async () => {
    const secret = Buffer.from(KEY, 'hex');
    const make = (tags: string[][], content = '') =>
      finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags, content }, secret);
    const base = Buffer.byteLength(JSON.stringify(make([])));
    const sized = (bytes: number) => make([], 'x'.repeat(bytes - base));
    expect(Buffer.byteLength(JSON.stringify(sized(RELAY_LIMITS.maxEventBytes)))).toBe(
      RELAY_LIMITS.maxEventBytes,
    );
    const tagsOf = (count: number) => Array.from({ length: count }, (_, i) => ['t', String(i)]);
    const value = (bytes: number) => [['r', 'v'.repeat(bytes)]];
    const cases: Array<[string, NostrEvent, RegExp | undefined]> = [
      ['at the event size', sized(RELAY_LIMITS.maxEventBytes), undefined],
      ['one byte over it', sized(RELAY_LIMITS.maxEventBytes + 1), /invalid: event too large: 65537/],
      ['at the tag count', make(tagsOf(RELAY_LIMITS.maxTags)), undefined],
      ['one tag over it', make(tagsOf(RELAY_LIMITS.maxTags + 1)), /invalid: too many tags: 2001/],
      ['at the tag value size', make(value(RELAY_LIMITS.maxTagValueBytes)), undefined],
      [
        'one byte over it',
        make(value(RELAY_LIMITS.maxTagValueBytes + 1)),
        /invalid: tag val too large: 1025/,
      ],
    ];
    for (const [name, event, refusal] of cases) {
      const answer = await publishOne(event);
      if (refusal) expect(answer.reason, name).toMatch(refusal);
      else expect(answer, name).toEqual({ accepted: true, reason: undefined });
    }
  });
});
