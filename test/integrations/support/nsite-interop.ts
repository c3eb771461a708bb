// Issue 36, item 4 and acceptance 3, over a signed build of an example site: `siegel publish --all
// --blossom` sends the site's events to a relay and its files to a Blossom store, and an nsite host server
// written from NIP-5A's text (test/support/nsite-resolver.ts) serves every page and every listed file
// byte-identical to the signed output, and `/404.html` (or a 404) for an unknown path.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSigner } from '@siegel/core';
import type { Event, EventTemplate } from 'nostr-tools/pure';
import { verifyEvent } from 'nostr-tools/pure';
import { expect } from 'vitest';
import { startBlossomStore } from '../../support/blossom-store.js';
import type { RunningBunker } from '../../support/bunker-process.js';
import {
  fetchManifest,
  fetchUserServers,
  manifestProblems,
  resolvePath,
} from '../../support/nsite-resolver.js';
import { queryRelay, startRelay } from '../../support/relay-process.js';
import { listPages, runSiegelCli } from './signed-output.js';

/** Signs one event with the site's key. */
type SignOne = (template: EventTemplate) => Promise<Event>;

/**
 * Publish the signed site in `outDir` (run in `cwd`, whose `.env` names the site's signer: a key of
 * `bunker`) to a fresh relay and Blossom store, announce the store in the key's BUD-03 list (kind 10063,
 * signed by the bunker), and check that an nsite host
 * server serves it from the manifest alone. Every event of the key on the relay passes nostr-tools'
 * `verifyEvent`; the manifest is valid NIP-5A.
 */
export async function expectNsiteHostServes(
  outDir: string,
  cwd: string,
  bunker: RunningBunker,
): Promise<void> {
  const signer = createSigner({ url: bunker.url, apiToken: bunker.apiToken, keyName: bunker.keyName });
  const sign: SignOne = async (template) => (await signer.signEvents([template]))[0] as Event;
  const [relay, store] = await Promise.all([startRelay(), startBlossomStore()]);
  try {
    // The manifest the signing run wrote.
    const local = JSON.parse(await readFile(join(outDir, 'verify/manifest.json'), 'utf8')) as Event;
    const published = await runSiegelCli(
      ['publish', outDir, '--all', '--relay', relay.url, '--blossom', store.url],
      cwd,
    );
    expect(published.code, published.output).toBe(0);
    const servers = await sign({
      kind: 10063,
      created_at: Math.floor(Date.now() / 1000),
      tags: [['server', store.url]],
      content: '',
    });
    await sendEvent(relay.url, servers);

    const d = local.tags.find((tag) => tag[0] === 'd')?.[1];
    const manifest = await fetchManifest([relay.url], { pubkey: local.pubkey, ...(d ? { d } : {}) });
    expect(manifest?.id, "the newest manifest on the relay is the site's").toBe(local.id);
    expect(manifestProblems(manifest as Event)).toEqual([]);
    const userServers = await fetchUserServers([relay.url], local.pubkey);
    const events = (await queryRelay(relay.url, { authors: [local.pubkey] })) as Event[];
    expect(events.length).toBeGreaterThan(2);
    expect(events.filter((event) => !verifyEvent(event)).map((event) => event.id)).toEqual([]);
    for (const auth of store.authEvents) expect(verifyEvent(auth)).toBe(true);

    const listed = (manifest as Event).tags.filter((tag) => tag[0] === 'path');
    const served = async (asked: string, path: string) => {
      const response = await resolvePath(manifest, asked, userServers);
      expect(response.status, asked).toBe(200);
      expect(response.servedPath, asked).toBe(`/${path}`);
      expect(response.body.equals(await readFile(join(outDir, path))), asked).toBe(true);
    };
    // Every page, asked for as a reader's link names it (a folder's page by the folder).
    for (const path of await listPages(outDir))
      await served(`/${path.replace(/(^|\/)index\.html$/, '$1')}`, path);
    for (const [, path] of listed) await served(path as string, (path as string).slice(1));
    const missing = await resolvePath(manifest, '/no-such-page-here/', userServers);
    expect(missing.status).toBe(404);
    if (listed.some((tag) => tag[1] === '/404.html')) {
      expect(missing.servedPath).toBe('/404.html');
      expect(missing.body.equals(await readFile(join(outDir, '404.html')))).toBe(true);
    }
  } finally {
    await Promise.all([relay.stop(), store.close()]);
  }
}

/** Send one event to the relay at `url`; resolves on its `OK` true. */
function sendEvent(url: string, event: Event): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no OK from ${url}`));
    }, 10_000);
    socket.onopen = () => socket.send(JSON.stringify(['EVENT', event]));
    socket.onerror = () => reject(new Error(`cannot reach ${url}`));
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as unknown[];
      if (data[0] !== 'OK' || data[1] !== event.id) return;
      clearTimeout(timer);
      socket.close();
      if (data[2] === true) resolve();
      else reject(new Error(`${url} refused the event: ${String(data[3])}`));
    };
  });
}
