// Issue 36, item 4: `siegel publish --blossom` uploads a signed site's files to a Blossom store (BUD-02, with
// BUD-11 auth), and an nsite host server written from NIP-5A's text serves the site from its manifest alone:
// every file byte-identical, `/404.html` for an unknown path. A store that refuses (401 bad auth, 413 too
// large) gives an error that names the file and the reason, and exit 1. Real parts: a relay process, the
// store on a loopback port, the built `siegel` CLI.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKeySigner, signSite } from '@siegel/core';
import { type Event, finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSiegel } from '../site/support.js';
import { type BlossomStore, startBlossomStore } from '../support/blossom-store.js';
import { fetchManifest, manifestProblems, NSITE_NAMED_KIND, resolvePath } from '../support/nsite-resolver.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): a handful of CLI processes against a relay and a store: 4 s alone
vi.setConfig({ testTimeout: 60_000 });

const SITE = 'https://blog.example.com/';
const key = generateSecretKey();
const keyHex = bytesToHex(key);
const pubkey = getPublicKey(key);
const D = 'blog-test';

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>\n`;

let root: string;
let dir: string;
let relay: RunningRelay;
let store: BlossomStore;

/** The manifest the signing run wrote. */
const signedManifest = async () =>
  JSON.parse(await readFile(join(dir, 'verify/manifest.json'), 'utf8')) as Event;

const publish = (args: string[]) =>
  runSiegel(['publish', 'site', ...args], { cwd: root, env: { SIEGEL_SECRET_KEY: keyHex } });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-blossom-'));
  dir = join(root, 'site');
  await mkdir(join(dir, 'about'), { recursive: true });
  await writeFile(
    join(dir, 'index.html'),
    page('Home', 'Welcome.', '<link rel="stylesheet" href="/style.css"><script src="/app.js"></script>'),
  );
  await writeFile(join(dir, 'about/index.html'), page('About', 'Who writes here.'));
  await writeFile(join(dir, '404.html'), page('Not found', 'No such page.'));
  await writeFile(join(dir, 'style.css'), 'main { max-width: 40rem }\n');
  // Larger than the verify script (300 kB): the one file the 1 MiB store refuses.
  await writeFile(join(dir, 'app.js'), `console.log(${JSON.stringify('x'.repeat(1_500_000))});\n`);
  await writeFile(join(dir, 'CNAME'), 'blog.example.com\n');
  [relay, store] = await Promise.all([startRelay(), startBlossomStore()]);
  // The store is named in the manifest's `server` tags: where a host server looks for the blobs.
  const summary = await signSite(dir, {
    site: SITE,
    signer: new LocalKeySigner(keyHex),
    cacheFile: join(root, '.sign-cache.json'),
    siteId: D,
    blossom: [store.url],
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  expect(summary.failed).toBe(0);
});

afterAll(async () => {
  await Promise.all([relay?.stop(), store?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel publish --blossom, and an nsite host server (NIP-5A) over the signed site', () => {
  it('uploads every file the manifest lists; the host server serves each byte-identical, /404.html for the rest', async () => {
    const manifest = await signedManifest();
    expect(manifestProblems(manifest)).toEqual([]);
    expect(manifest.tags).toContainEqual(['server', store.url]);
    const listed = manifest.tags.filter((tag) => tag[0] === 'path');
    const blobs = new Set(listed.map((tag) => tag[2])).size;
    const result = await publish(['--all', '--relay', relay.url, '--blossom', store.url]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `Siegel: Blossom ${store.url}: ${blobs} uploaded, 0 already there (${blobs} blobs)`,
    );
    // One BUD-11 event per blob, by the site's key, each passing nostr-tools' verifyEvent.
    expect(store.authEvents).toHaveLength(blobs);
    for (const auth of store.authEvents) {
      expect(verifyEvent(auth)).toBe(true);
      expect(auth).toMatchObject({ kind: 24242, pubkey });
    }

    const newest = await fetchManifest([relay.url], { pubkey, d: D });
    expect(newest?.id).toBe(manifest.id);
    for (const [, path, sha] of listed) {
      const file = await readFile(join(dir, path as string));
      const asked = (path as string).replace(/\/index\.html$/, '/');
      const response = await resolvePath(newest, asked);
      expect(response.status, asked).toBe(200);
      expect(response.servedPath, asked).toBe(path);
      expect(response.body.equals(file), asked).toBe(true);
      expect(createHash('sha256').update(response.body).digest('hex')).toBe(sha);
    }
    expect((await resolvePath(newest, '/about/')).contentType).toMatch(/^text\/html/);
    expect((await resolvePath(newest, '/style.css')).contentType).toMatch(/^text\/css/);
    const missing = await resolvePath(newest, '/no/such/page/');
    expect(missing.status).toBe(404);
    expect(missing.servedPath).toBe('/404.html');
    expect(missing.body.equals(await readFile(join(dir, '404.html')))).toBe(true);
    // A file NIP-5A cannot name is not in the manifest, so not served.
    expect(listed.map((tag) => tag[1])).not.toContain('/CNAME');
  });

  it('a second run uploads nothing: every blob is there already (HEAD)', async () => {
    const puts = store.requests.filter((request) => request.method === 'PUT').length;
    const result = await publish(['--blossom', store.url]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`Blossom ${store.url}: 0 uploaded, (\\d+) already there \\(\\1 blobs\\)`),
    );
    expect(store.requests.filter((request) => request.method === 'PUT')).toHaveLength(puts);
  });

  it('a store that refuses: 401 (bad auth) and 413 (too large) name each file and the reason, exit 1', async () => {
    const [strict, small] = await Promise.all([
      startBlossomStore({ pubkeys: [getPublicKey(generateSecretKey())] }),
      startBlossomStore({ maxBytes: 1024 * 1024 }),
    ]);
    try {
      const result = await publish(['--blossom', strict.url, '--blossom', small.url]);
      const output = result.stdout + result.stderr;
      expect(result.code, output).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `Blossom ${strict.url}: \\d+ not uploaded — PUT /upload answered 401 Unauthorized — pubkey ${pubkey} may not upload here: /`,
        ),
      );
      expect(result.stderr).toContain(
        `Blossom ${small.url}: 1 not uploaded — PUT /upload answered 413 Payload Too Large — blobs over 1048576 bytes are not stored here: /app.js`,
      );
      expect(small.blobs.size).toBeGreaterThan(0);
      expect(strict.blobs.size).toBe(0);
    } finally {
      await Promise.all([strict.close(), small.close()]);
    }
  });

  it('layout blob: every file of the path list is uploaded, the list file too; a changed list is an error', async () => {
    const inline = await signedManifest();
    const text = JSON.stringify({
      siegel: 'site-manifest/1',
      tags: inline.tags.filter((tag) => tag[0] !== 'd'),
    });
    const sha = createHash('sha256').update(text).digest('hex');
    await writeFile(join(dir, `verify/manifest-${sha}.json`), text);
    const event = finalizeEvent(
      {
        kind: NSITE_NAMED_KIND,
        created_at: inline.created_at,
        tags: [
          ['d', D],
          ['url', SITE],
          ['manifest', sha, String(Buffer.byteLength(text))],
          ['path', `/verify/manifest-${sha}.json`, sha],
        ],
        content: '',
      },
      key,
    );
    await writeFile(join(dir, 'verify/manifest.json'), JSON.stringify(event));
    const fresh = await startBlossomStore();
    try {
      const result = await publish(['--blossom', fresh.url, '--all', '--relay', relay.url]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      // The path list is a file, not an event: `--all` sends the events only, without a warning.
      expect(result.stderr).not.toContain('not a validly signed event');
      const blobs = new Set([sha, ...inline.tags.filter((tag) => tag[0] === 'path').map((tag) => tag[2])]);
      expect(result.stdout).toContain(`Blossom ${fresh.url}: ${blobs.size} uploaded, 0 already there`);
      expect([...fresh.blobs.keys()].sort()).toEqual([...blobs].sort());

      await writeFile(join(dir, `verify/manifest-${sha}.json`), `${text} `);
      const changed = await publish(['--blossom', fresh.url]);
      expect(changed.code).toBe(1);
      expect(changed.stderr).toContain(
        `The manifest's path list \`verify/manifest-${sha}.json\` is missing or changed`,
      );
    } finally {
      await fresh.close();
      await rm(join(dir, `verify/manifest-${sha}.json`));
      await writeFile(join(dir, 'verify/manifest.json'), JSON.stringify(inline));
    }
  });

  it('a file changed after signing is not uploaded; no manifest and a bad server are errors', async () => {
    const original = await readFile(join(dir, 'style.css'));
    await writeFile(join(dir, 'style.css'), 'main { max-width: 50rem }\n');
    try {
      const changed = await publish(['--blossom', store.url]);
      expect(changed.code).toBe(1);
      expect(changed.stderr).toContain(
        `Blossom ${store.url}: 1 not uploaded — changed since the manifest was signed (sign again): /style.css`,
      );
    } finally {
      await writeFile(join(dir, 'style.css'), original);
    }
    const badServer = await publish(['--blossom', 'http://blossom.example.com']);
    expect(badServer.code).toBe(2);
    expect(badServer.stderr).toContain(
      'Blossom server `http://blossom.example.com` (--blossom) must be an https:// URL (http:// only on a loopback host)',
    );
    await rm(join(dir, 'verify/manifest.json'));
    const none = await publish(['--blossom', store.url]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No site manifest `verify/manifest.json`');
  });
});
