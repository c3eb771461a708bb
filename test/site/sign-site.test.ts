import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  analyzePage,
  applySignatureBlock,
  hashPage,
  PAGE_EVENT_KIND,
  readSignatureBlock,
  renderSignatureBlock,
  verifySite,
} from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';
import { decode, npubEncode } from 'nostr-tools/nip19';
import * as nip94 from 'nostr-tools/nip94';
import { verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { NSITE_NAMED_KIND, readManifest } from '../../packages/core/src/manifest/site-manifest.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { serveDirectory } from '../support/static-server.js';
import { runSiegel, snapshotTree } from './support.js';

// Timeouts (docs/testing.md): whole-site runs of the CLI: 26 s alone
vi.setConfig({ testTimeout: 120_000 });

const SITE = 'https://example.com';
const PAGES = 80; // ≥ 64: the run uses the parse workers

let bunker: RunningBunker;
let proxy: CountingProxy;
let root: string;
let paths: string[];

/** A project dir with `.env` pointing at the counting proxy, and a pristine unsigned build in `build/`. */
async function writeEnv(dir: string, extra: Record<string, string> = {}): Promise<void> {
  const values = { BUNKER_URL: proxy.url, BUNKER_API_TOKEN: bunker.apiToken, SITE_URL: SITE, ...extra };
  await writeFile(
    join(dir, '.env'),
    Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
}

async function freshCopy(name: string): Promise<string> {
  const dir = join(root, name);
  await cp(join(root, 'build'), dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  bunker = await startBunker();
  proxy = await startCountingProxy(bunker.url);
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-site-'));
  paths = await generateSite(join(root, 'build'), PAGES, 7);
  await writeEnv(root);
});

afterAll(async () => {
  await proxy?.close();
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel sign against a real bunker (issue 3, acceptance 2)', () => {
  it('signs, stays byte-identical outside the block, and re-signs only what changed', async () => {
    const dist = await freshCopy('dist');
    proxy.reset();
    const first = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Siegel: ${PAGES} signed, 0 unchanged, 0 skipped (no <main>), 0 failed`);
    // One request for the pages, one for the site manifest that lists them.
    expect(proxy.signRequests(PAGE_EVENT_KIND)).toBe(1);
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signRequests()).toBe(2);

    const signed = await snapshotTree(dist);
    const manifest = readManifest(JSON.parse(signed.get('verify/manifest.json')?.toString('utf8') as string));
    expect(manifest.pages.size).toBe(PAGES);
    for (const path of paths) {
      const input = await readFile(join(root, 'build', path), 'utf8');
      const html = signed.get(path)?.toString('utf8') as string;
      const block = readSignatureBlock(html);
      expect(block?.hash).toBe(hashPage(input));
      expect(block?.pubkey).toBe(bunker.pubkey);
      const event = JSON.parse(
        signed.get(`verify/${block?.eventId}.json`)?.toString('utf8') as string,
      ) as NostrEvent;
      expect(verifyEvent(event)).toBe(true);
      expect(nip94.validateEvent(event)).toBe(true);
      expect(event.tags.find((tag) => tag[0] === 'x')?.[1]).toBe(block?.hash);
      expect(event.tags.find((tag) => tag[0] === 'url')?.[1]).toBe(
        `${SITE}/${path.replace(/index\.html$/, '')}`,
      );
      // Outside the block, every byte is the build's.
      const rebuilt = applySignatureBlock(
        input,
        analyzePage(input),
        renderSignatureBlock(event, { verifyUrl: `${SITE}/verify/${event.id}` }),
      );
      expect(html).toBe(rebuilt);
      expect(signed.has(`verify/${event.id}/index.html`)).toBe(true);
      expect(manifest.pages.get(`/${path}`)?.eventId).toBe(event.id);
    }
    expect(signed.has('verify/siegel-verify.js')).toBe(true);

    // Again on the signed output: nothing changes, no sign request.
    proxy.reset();
    const cacheBefore = await readFile(join(root, '.sign-cache.json'));
    const again = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    expect(proxy.signRequests()).toBe(0);
    expect(await snapshotTree(dist)).toEqual(signed);
    expect(await readFile(join(root, '.sign-cache.json'))).toEqual(cacheBefore);

    // A fresh copy of the unsigned build: 0 sign requests, identical blocks.
    const copy = await freshCopy('copy');
    proxy.reset();
    const fromCache = await runSiegel(['sign', 'copy'], { cwd: root });
    expect(fromCache.code).toBe(0);
    expect(proxy.signRequests()).toBe(0);
    expect(await snapshotTree(copy)).toEqual(signed);

    // One page's <main> changes: exactly that page is re-signed.
    const changedPath = paths[3] as string;
    const edited = await freshCopy('edited');
    const original = await readFile(join(edited, changedPath), 'utf8');
    await writeFile(join(edited, changedPath), original.replace('<article><h1>', '<article><h1>Neu: '));
    proxy.reset();
    const oneChanged = await runSiegel(['sign', 'edited', '--verbose'], { cwd: root });
    expect(oneChanged.code).toBe(0);
    expect(oneChanged.stdout).toContain(`1 signed, ${PAGES - 1} unchanged`);
    expect(oneChanged.stdout).toMatch(new RegExp(`signed\\s+${changedPath.replace(/[./]/g, '\\$&')}`));
    expect(proxy.signedEvents(PAGE_EVENT_KIND)).toBe(1);
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signedEvents()).toBe(2);
    const editedTree = await snapshotTree(edited);
    for (const path of paths) {
      if (path === changedPath) expect(editedTree.get(path)).not.toEqual(signed.get(path));
      else expect(editedTree.get(path)).toEqual(signed.get(path));
    }

    // Only <head> changes: nothing is re-signed.
    const headOnly = await freshCopy('head-only');
    const page = await readFile(join(headOnly, changedPath), 'utf8');
    await writeFile(
      join(headOnly, changedPath),
      page.replace('<meta charset="utf-8">', '<meta charset="utf-8"><meta name="robots" content="noindex">'),
    );
    await writeFile(
      join(headOnly, changedPath),
      (await readFile(join(headOnly, changedPath), 'utf8')).replace('<article><h1>', '<article><h1>Neu: '),
    );
    proxy.reset();
    const headRun = await runSiegel(['sign', 'head-only'], { cwd: root });
    expect(headRun.code).toBe(0);
    expect(headRun.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    expect(proxy.signRequests(PAGE_EVENT_KIND)).toBe(0);
    // The page's bytes are not the edited run's: the manifest, which pins them, is signed again.
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signRequests()).toBe(1);

    // `siegel verify` agrees, also with the expected signer as npub; a wrong signer fails.
    const verified = await runSiegel(['verify', 'dist', '--pubkey', npubEncode(bunker.pubkey)], {
      cwd: root,
    });
    expect(verified.stdout).toContain(`Siegel verify: ${PAGES} valid, 0 invalid`);
    expect(verified.code).toBe(0);
    const wrongSigner = await runSiegel(['verify', 'dist', '--pubkey', 'f'.repeat(64)], { cwd: root });
    expect(wrongSigner.code).toBe(1);
    expect(wrongSigner.stdout).toContain(`expected \`${'f'.repeat(64)}\``);

    // Over HTTP, as a reader would: crawled from the start page (the generated nav links the posts). Pages
    // signed for `SITE` and served on this machine at their paths are a local preview (issue 39): valid,
    // with the warning address.preview.
    const copies = await serveDirectory(dist);
    try {
      const preview = await runSiegel(['verify', copies.url, '--pubkey', bunker.pubkey], { cwd: root });
      expect(preview.code).toBe(0);
      expect(preview.stdout).toMatch(/Siegel verify: \d+ valid, 0 invalid, 0 not found/);
      expect(preview.stdout).toMatch(/^warning: \d+ pages: A local preview: .* \[address\.preview\]$/m);
    } finally {
      await copies.close();
    }
    // Signed for the address it is served at, the same site is valid there.
    const served = join(root, 'served');
    const server = await serveDirectory(served);
    try {
      await cp(join(root, 'build'), served, { recursive: true });
      const signedThere = await runSiegel(
        ['sign', 'served', '--site', server.url, '--cache', 'served-cache.json'],
        {
          cwd: root,
        },
      );
      expect(signedThere.code).toBe(0);
      const overHttp = await runSiegel(['verify', server.url, '--pubkey', bunker.pubkey], { cwd: root });
      expect(overHttp.code).toBe(0);
      expect(overHttp.stdout).toMatch(/Siegel verify: \d+ valid, 0 invalid, 0 not found/);
      expect(Number(/(\d+) valid/.exec(overHttp.stdout)?.[1])).toBeGreaterThan(10);
    } finally {
      await server.close();
    }
  });

  it('a different key re-signs every page, with a notice', async () => {
    const created = await fetch(`${bunker.url}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bunker.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'other', generate: true, passphrase: bunker.passphrase }),
    });
    expect(created.status).toBe(201);
    const { pubkey: otherPubkey } = (await created.json()) as { pubkey: string };
    const unlocked = await fetch(`${bunker.url}/api/keys/other/unlock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bunker.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passphrase: bunker.passphrase }),
    });
    expect([200, 204]).toContain(unlocked.status);
    const project = join(root, 'other-key');
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    await writeEnv(project);
    expect((await runSiegel(['sign'], { cwd: project })).code).toBe(0);
    await writeEnv(project, { BUNKER_KEY_NAME: 'other' });
    proxy.reset();
    const run = await runSiegel(['sign'], { cwd: project });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /made for the key `[0-9a-f]{64}`, now signing as `[0-9a-f]{64}`: re-signing all pages/,
    );
    expect(run.stdout).toContain(`${PAGES} signed, 0 unchanged`);
    expect(proxy.signedEvents(PAGE_EVENT_KIND)).toBe(PAGES);
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signedEvents()).toBe(PAGES + 1);
    const report = await verifySite(join(project, 'dist'), { pubkey: otherPubkey });
    expect(report).toMatchObject({ ok: true, valid: PAGES, invalid: 0 });
  });

  it('relay hints: SIEGEL_RELAYS goes into every nevent; a new --relay rewrites blocks with 0 sign requests', async () => {
    const project = join(root, 'relays');
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    await writeEnv(project, { SIEGEL_RELAYS: 'wss://relay.example.com,wss://nos.example' });
    const neventOf = async (path: string) => {
      const html = await readFile(join(project, 'dist', path), 'utf8');
      const nevent = /<link rel="alternate" href="nostr:(nevent1[0-9a-z]+)">/.exec(html)?.[1] as string;
      const decoded = decode(nevent);
      if (decoded.type !== 'nevent') throw new Error(`not an nevent: ${nevent}`);
      return { ...decoded.data, eventId: readSignatureBlock(html)?.eventId };
    };
    proxy.reset();
    const first = await runSiegel(['sign'], { cwd: project });
    expect(first.code).toBe(0);
    expect(proxy.signedEvents(PAGE_EVENT_KIND)).toBe(PAGES);
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signedEvents()).toBe(PAGES + 1);
    const before = new Map<string, string | undefined>();
    for (const path of paths) {
      const data = await neventOf(path);
      expect(data.relays, path).toEqual(['wss://relay.example.com', 'wss://nos.example']);
      expect(data.id).toBe(data.eventId);
      expect(data.author).toBe(bunker.pubkey);
      before.set(path, data.id);
    }
    // The same signed output, another relay by flag: the events stay, only the nevents change.
    proxy.reset();
    const second = await runSiegel(['sign', '--relay', 'wss://other.example'], { cwd: project });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    expect(proxy.signRequests(PAGE_EVENT_KIND)).toBe(0);
    // The rewritten blocks change the pages' bytes: only the manifest, which pins them, is signed again.
    expect(proxy.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(proxy.signRequests()).toBe(1);
    for (const path of paths) {
      const data = await neventOf(path);
      expect(data.relays, path).toEqual(['wss://other.example']);
      expect(data.id).toBe(before.get(path));
    }
    expect((await verifySite(join(project, 'dist'), { pubkey: bunker.pubkey })).ok).toBe(true);
  });
});

describe('siegel sign errors (issue 3, acceptance 3)', () => {
  it('each error exits non-zero with its message and leaves pages and cache as they were', async () => {
    const project = join(root, 'errors');
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    await writeEnv(project);
    // A first run so that a cache exists and some verify pages too; then a fresh unsigned build.
    expect((await runSiegel(['sign'], { cwd: project })).code).toBe(0);
    await rm(join(project, 'dist'), { recursive: true });
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    const before = await snapshotTree(project);

    const cases: Array<{ name: string; env: Record<string, string> | undefined; message: RegExp }> = [
      { name: 'no .env', env: undefined, message: /^BUNKER_API_TOKEN nicht gesetzt\n/ },
      { name: 'empty token', env: { BUNKER_API_TOKEN: '' }, message: /^BUNKER_API_TOKEN nicht gesetzt\n/ },
      {
        // A token that is set but rejected (401) is not reported as missing.
        name: 'wrong token',
        env: { BUNKER_API_TOKEN: 'not-the-token' },
        message: /^BUNKER_API_TOKEN ungültig\n.*BUNKER_URL `http:\/\/127\.0\.0\.1:\d+`/,
      },
      { name: 'unknown key', env: { BUNKER_KEY_NAME: 'gibt-es-nicht' }, message: /^Key nicht gefunden\n/ },
      { name: 'locked key', env: { BUNKER_KEY_NAME: 'locked' }, message: /^Key ist gesperrt\n/ },
      {
        name: 'bunker down',
        env: { BUNKER_URL: 'http://127.0.0.1:9' },
        message: /Bunker not reachable at BUNKER_URL `http:\/\/127\.0\.0\.1:9`/,
      },
    ];
    const lockedKey = await fetch(`${bunker.url}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bunker.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'locked', generate: true, passphrase: bunker.passphrase }),
    });
    expect(lockedKey.status).toBe(201);
    await fetch(`${bunker.url}/api/keys/locked/lock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bunker.adminToken}` },
    });

    for (const { name, env, message } of cases) {
      if (env === undefined) await rm(join(project, '.env'));
      else await writeEnv(project, env);
      const run = await runSiegel(['sign', '--site', SITE], { cwd: project });
      expect(run.code, name).toBe(1);
      expect(run.stderr, name).toMatch(message);
      const after = await snapshotTree(project);
      after.delete('.env');
      const expected = new Map(before);
      expected.delete('.env');
      expect(after, name).toEqual(expected);
    }

    // A corrupt cache is a warning; the run completes.
    await writeEnv(project);
    await writeFile(join(project, '.sign-cache.json'), '{"spec":"siegel-page/1","pages":{"index.html":');
    const corrupt = await runSiegel(['sign'], { cwd: project });
    expect(corrupt.code).toBe(0);
    expect(corrupt.stderr).toMatch(/cache `.*\.sign-cache\.json` is corrupt/);
    expect(corrupt.stdout).toContain(`${PAGES} signed`);
    expect((await verifySite(join(project, 'dist'))).ok).toBe(true);
  });
});
