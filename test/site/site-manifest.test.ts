// Issue 36, the signing half: every signing run signs the site manifest (docs/site-manifest.md). Through
// the built CLI, as a user runs it: the manifest lists every file of the output with its hash (compared
// with a walk), a warm run signs nothing, one changed page signs that page and the manifest only, a
// deleted page's verify files go, an invalid --site-id and a site id another site holds on the relay are
// usage errors (exit 2) naming --site-id.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finalizeEvent, verifyEvent } from 'nostr-tools/pure';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readManifest } from '../../packages/core/src/manifest/site-manifest.js';
import { startRelay } from '../support/relay-process.js';
import { manifestFilesOf } from '../support/site-manifest-files.js';
import { runSiegel, snapshotTree } from './support.js';

// Each test runs the CLI 2–4 times (≈ 1.5 s each on the shared 2-core machine) and one starts a relay.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 30_000 });

const SITE = 'https://example.com';
const KEY = '7'.repeat(64);
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function makeSite(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'siegel-manifest-'));
  dirs.push(root);
  await mkdir(join(root, 'dist', 'a'), { recursive: true });
  await mkdir(join(root, 'dist', 'b'), { recursive: true });
  await writeFile(join(root, '.env'), `SIEGEL_SECRET_KEY=${KEY}\nSITE_URL=${SITE}\n`);
  await writeFile(
    join(root, 'dist', 'index.html'),
    '<!doctype html><title>Home</title><script src="/app.js"></script><main>home</main>',
  );
  await writeFile(join(root, 'dist', 'a', 'index.html'), '<!doctype html><title>A</title><main>a</main>');
  await writeFile(join(root, 'dist', 'b', 'index.html'), '<!doctype html><title>B</title><main>b</main>');
  await writeFile(join(root, 'dist', 'app.js'), 'console.log(1)');
  await writeFile(join(root, 'dist', 'CNAME'), 'example.com');
  return root;
}

const sign = (root: string, args: string[] = []) => runSiegel(['sign', 'dist', ...args], { cwd: root });
const manifestOf = async (root: string) =>
  JSON.parse(await readFile(join(root, 'dist', 'verify', 'manifest.json'), 'utf8'));

describe('the site manifest of a signing run', () => {
  it('lists every file of the output with its hash, each signed page with its event and loads', async () => {
    const root = await makeSite();
    const result = await sign(root);
    expect(result.code, result.stderr).toBe(0);
    const event = await manifestOf(root);
    expect(verifyEvent(event)).toBe(true);
    const manifest = readManifest(event);
    const expected = await manifestFilesOf(join(root, 'dist'));
    expect(expected.has('/verify/siegel-verify.js')).toBe(true);
    expect(manifest.files).toEqual(expected);
    expect(manifest.files.has('/CNAME')).toBe(false);
    expect(manifest.pages.size).toBe(3);
    expect(manifest.pages.get('/index.html')?.loads).toEqual(['script /app.js']);
    expect(manifest).toMatchObject({ kind: 35128, siteUrl: `${SITE}/` });
    for (const page of manifest.pages.values()) {
      const pageEvent = JSON.parse(
        await readFile(join(root, 'dist', 'verify', `${page.eventId}.json`), 'utf8'),
      );
      expect(pageEvent.tags).toContainEqual(['a', `35128:${event.pubkey}:${manifest.d}`]);
    }
  });

  it('signs nothing on a warm run; one changed page signs it and the manifest; a deleted page’s verify files go', async () => {
    const root = await makeSite();
    expect((await sign(root)).code).toBe(0);
    const first = await manifestOf(root);
    const warm = await sign(root);
    expect(warm.stdout).toMatch(/0 signed/);
    expect(warm.stdout).toMatch(/Site manifest: unchanged/);
    expect(await manifestOf(root)).toEqual(first);
    const removedId = readManifest(first).pages.get('/b/index.html')?.eventId as string;
    await writeFile(join(root, 'dist', 'a', 'index.html'), '<!doctype html><title>A</title><main>a2</main>');
    await rm(join(root, 'dist', 'b'), { recursive: true });
    const changed = await sign(root);
    expect(changed.stdout).toMatch(/1 signed, 1 unchanged/);
    expect(changed.stdout).toMatch(/Site manifest: signed/);
    const second = await manifestOf(root);
    expect(second.created_at).toBeGreaterThan(first.created_at);
    const tree = await snapshotTree(join(root, 'dist'));
    const names = [...tree.keys()].map((path) => path.split('\\').join('/'));
    expect(names.filter((name) => name.includes(removedId))).toEqual([]);
    expect(readManifest(second).pages.has('/b/index.html')).toBe(false);
  });

  it('refuses an invalid --site-id, and a site id the relay holds for another site, naming --site-id', async () => {
    const root = await makeSite();
    const invalid = await sign(root, ['--site-id', 'Bad_Id']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/--site-id/);
    const relay = await startRelay();
    try {
      const other = finalizeEvent(
        {
          kind: 35128,
          created_at: 1,
          tags: [
            ['d', 'taken'],
            ['url', 'https://other.example/'],
            ['path', '/index.html', 'a'.repeat(64)],
          ],
          content: '',
        },
        Buffer.from(KEY, 'hex'),
      );
      const socket = new WebSocket(relay.url);
      await new Promise<void>((resolve, reject) => {
        socket.onopen = () => socket.send(JSON.stringify(['EVENT', other]));
        socket.onmessage = (message) =>
          JSON.parse(String(message.data))[2] ? resolve() : reject(new Error(String(message.data)));
        socket.onerror = () => reject(new Error('relay'));
      });
      socket.close();
      const refused = await sign(root, ['--site-id', 'taken', '--relay', relay.url]);
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.stderr).toMatch(/--site-id/);
      expect(refused.stderr).toMatch(/other\.example/);
      const own = await sign(root, ['--site-id', 'mine', '--relay', relay.url]);
      expect(own.code, own.stderr).toBe(0);
      // Asked once per site id: the cache keeps this site's manifest for `mine`, so a later run does not
      // wait on the relays again — a silent one is not asked (no warning); a new id is asked again.
      const silent = await startRelay({ silent: true });
      try {
        const again = await sign(root, [
          '--site-id',
          'mine',
          '--relay',
          silent.url,
          '--publish-timeout',
          '1',
        ]);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).not.toContain('No relay answered the check');
        const fresh = await sign(root, [
          '--site-id',
          'fresh',
          '--relay',
          silent.url,
          '--publish-timeout',
          '1',
        ]);
        expect(fresh.code, fresh.stderr).toBe(0);
        expect(fresh.stderr).toContain('No relay answered the check that the site id `fresh` is this site');
      } finally {
        await silent.stop();
      }
    } finally {
      await relay.stop();
    }
  });
});
