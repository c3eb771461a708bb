// Issue 13, acceptance 4: `siegel sign` signs through an independent NIP-46 remote signer — NDK's
// NDKNip46Backend in its own process — over a real relay process. BUNKER_URL=bunker://… selects it; the
// client key is kept beside the cache and reused; the second run makes no request at all.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Nip46Signer, parseBunkerUri, SiegelError, signSite } from '../../packages/core/src/index.js';
import { runSiegel, snapshotTree } from '../site/support.js';
import { freePort } from '../support/free-port.js';
import { type RunningNip46Signer, startNip46Signer } from '../support/nip46-signer-process.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

// Timeouts (docs/testing.md): NIP-46 runs against a relay: 13 s alone, 28 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

const PAGES = 200;
const SITE = 'https://blog.example.com';
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

let relay: RunningRelay;
const signers: RunningNip46Signer[] = [];
let work: string;

/** A built site of `count` pages, each with its own `<main>`. */
async function writeSite(dir: string, count: number): Promise<void> {
  await mkdir(join(dir, 'posts'), { recursive: true });
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      writeFile(
        join(dir, i === 0 ? 'index.html' : `posts/${i}.html`),
        `<!doctype html><html><head><title>Post ${i}</title></head><body><main><h1>Post ${i}</h1><p>Text of post ${i}.</p></main></body></html>`,
      ),
    ),
  );
}

async function signer(
  options: { refuse?: boolean; denyConnect?: boolean } = {},
): Promise<RunningNip46Signer> {
  const started = await startNip46Signer({ relay: relay.url, ...options });
  signers.push(started);
  return started;
}

beforeAll(async () => {
  relay = await startRelay();
  work = await mkdtemp(join(tmpdir(), 'siegel-nip46-client-'));
});

afterAll(async () => {
  await Promise.all(signers.map((running) => running.stop()));
  await relay?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('signing through an independent NIP-46 signer (NDK) over a relay', () => {
  it('signs a 200-page site with `siegel sign`, every event verifies, and the second run sends no request', async () => {
    const remote = await signer();
    const project = join(work, 'site');
    const dist = join(project, 'dist');
    await writeSite(dist, PAGES);
    const env = { BUNKER_URL: remote.uri, SITE_URL: SITE };

    const first = await runSiegel(['sign', 'dist'], { cwd: project, env });
    expect(first.stderr + first.stdout).toContain(`${PAGES} signed, 0 unchanged`);
    expect(first.code).toBe(0);
    // Progress through the logger while the requests run.
    expect(first.stdout).toContain('100 events signed through NIP-46');

    // The signer saw one connect (with the URI's secret), one get_public_key, one sign_event per page and
    // one for the site manifest —
    // all from the one client key now kept beside the cache, readable by its owner only.
    const requests = remote.requests();
    const methods = requests.map((request) => request.method);
    expect(methods.filter((method) => method === 'connect')).toHaveLength(1);
    expect(methods.filter((method) => method === 'sign_event')).toHaveLength(PAGES + 1);
    expect(requests.every((request) => request.allowed)).toBe(true);
    const keyFile = join(project, '.siegel-nip46-client.json');
    const saved = JSON.parse(await readFile(keyFile, 'utf8'));
    expect(new Set(requests.map((request) => request.client))).toEqual(
      new Set([getPublicKey(Buffer.from(saved.secretKey, 'hex'))]),
    );
    expect(saved.sessions[remote.pubkey].userPubkey).toBe(remote.pubkey);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

    // Every event the site carries (one per page, and the manifest) is valid and signed by the remote signer's key.
    // (The manifest's path list, `manifest-<sha256>.json` in the blob layout, is no event.)
    const eventFiles = (await readdir(join(dist, 'verify'))).filter((name) =>
      /^([0-9a-f]{64}|manifest)\.json$/.test(name),
    );
    expect(eventFiles).toHaveLength(PAGES + 1);
    expect(eventFiles).toContain('manifest.json');
    for (const name of eventFiles) {
      const event = JSON.parse(await readFile(join(dist, 'verify', name), 'utf8'));
      expect(verifyEvent(event)).toBe(true);
      expect(event.pubkey).toBe(remote.pubkey);
    }
    const verified = await runSiegel(['verify', 'dist', '--pubkey', remote.pubkey], { cwd: project });
    expect(verified.code).toBe(0);

    // Second run: nothing changed — the pubkey comes from the client key file, no request is sent.
    const before = remote.requests().length;
    const second = await runSiegel(['sign', 'dist'], { cwd: project, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    expect(remote.requests()).toHaveLength(before);

    // One page changed: one sign_event for it and one for the new site manifest (the page's bytes changed),
    // and no second connect (the secret was for the first one only).
    await writeFile(join(dist, 'posts/7.html'), '<html><body><main>Post 7, edited.</main></body></html>');
    const third = await runSiegel(['sign', 'dist'], { cwd: project, env });
    expect(third.code).toBe(0);
    expect(third.stdout).toContain(`1 signed, ${PAGES - 1} unchanged`);
    expect(
      remote
        .requests()
        .slice(before)
        .map((request) => request.method),
    ).toEqual(['sign_event', 'sign_event']);
  });

  it('a signer that refuses to sign: `Key ist gesperrt`, exit 1, nothing written', async () => {
    const remote = await signer({ refuse: true });
    const project = join(work, 'refused');
    const dist = join(project, 'dist');
    await writeSite(dist, 5);
    const before = await snapshotTree(dist);
    const run = await runSiegel(['sign', 'dist'], {
      cwd: project,
      env: { BUNKER_URL: remote.uri, SITE_URL: SITE },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toContain('Key ist gesperrt');
    expect(run.stderr).toContain(
      `The NIP-46 signer \`${remote.pubkey}\` refused \`sign_event\`: \`Not authorized\``,
    );
    expect(await snapshotTree(dist)).toEqual(before);
    await expect(stat(join(project, '.sign-cache.json'))).rejects.toThrow(/ENOENT/);
    expect(
      remote.requests().filter((request) => request.method === 'sign_event' && !request.allowed).length,
    ).toBeGreaterThan(0);
  });

  it('a signer that refuses the connection: `Key ist gesperrt` before anything is signed', async () => {
    const remote = await signer({ denyConnect: true });
    const dir = join(work, 'denied');
    await writeSite(dir, 3);
    const before = await snapshotTree(dir);
    const error = await signSite(dir, {
      site: SITE,
      signer: remote.uri,
      cacheFile: join(work, 'denied-cache', '.sign-cache.json'),
      logger: quiet,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SiegelError);
    expect((error as SiegelError).code).toBe('key_locked');
    expect((error as SiegelError).message).toMatch(
      /^Key ist gesperrt\nThe NIP-46 signer `[0-9a-f]{64}` refused to connect this client/,
    );
    expect(await snapshotTree(dir)).toEqual(before);
    expect(remote.requests().map((request) => request.method)).toEqual(['connect']);
  });

  it('no relay reachable: a clear `bunker_unreachable` error naming the relay', async () => {
    const port = await freePort();
    const dir = join(work, 'unreachable');
    await writeSite(dir, 2);
    const uri = `bunker://${'ab'.repeat(32)}?relay=ws://127.0.0.1:${port}&secret=s3cret`;
    const error = await signSite(dir, {
      site: SITE,
      env: { BUNKER_URL: uri },
      cacheFile: join(work, 'unreachable-cache', '.sign-cache.json'),
      logger: quiet,
    }).catch((caught: unknown) => caught);
    expect((error as SiegelError).code).toBe('bunker_unreachable');
    expect((error as SiegelError).message).toContain(
      `No relay of the NIP-46 signer is reachable: \`ws://127.0.0.1:${port}\``,
    );
    expect((error as SiegelError).message).not.toContain('s3cret');
  });

  it('refuses a bad bunker:// URI, quoting it without its secret', async () => {
    expect(() => parseBunkerUri('bunker://not-a-key?relay=wss://relay.example.com&secret=hush')).toThrow(
      'BUNKER_URL `bunker://not-a-key?relay=wss://relay.example.com&secret=…` must name the remote signer by its hex pubkey',
    );
    expect(
      () => new Nip46Signer({ uri: `bunker://${'ab'.repeat(32)}?relay=ws://relay.example.com` }),
    ).toThrow(
      'Relay `ws://relay.example.com` (BUNKER_URL) must be a wss:// URL (ws:// only on a loopback host)',
    );
    expect(() => parseBunkerUri(`bunker://${'ab'.repeat(32)}`)).toThrow('names no relay');
    await expect(signSite(work, { site: SITE, signer: 'bunker://nope' })).rejects.toThrow(
      '`signer` must be a Signer or a bunker://<hex pubkey>?relay=… URI, got `bunker://nope`',
    );
  });
});
