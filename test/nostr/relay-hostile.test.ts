// Issue 24, acceptance 1 and 4: hostile relays and a hostile NIP-46 signer against the one relay client.
// - A relay's 64 MiB message: the CLI (RelayPublisher, `siegel verify --relay`) and the file server close
//   the socket with 1009 before buffering it (measured before: 421 MB for the CLI, 863 MB for the server).
//   The relay counts what it sent (in 32 KiB fragments, each only once the client had read the last): a
//   client that closes at its 2 MiB cap took 2 MiB + one fragment; one that buffers the message took 64 MiB.
// - A page whose nevent names 100 relays costs `siegel verify` at most 5 connections; in a directory, relay
//   hints on loopback are not followed (a `--relay` the user names is).
// - A NIP-04 reply and a 30 MB reply from a NIP-46 signer end `siegel sign` with a `bunker_error` naming
//   the signer, not with an uncaught exception.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  analyzePage,
  applySignatureBlock,
  LocalKeySigner,
  type NostrEvent,
  RelayPublisher,
  renderSignatureBlock,
  type SiegelError,
  signSite,
} from '@siegel/core';
import * as nip04 from 'nostr-tools/nip04';
import { neventEncode } from 'nostr-tools/nip19';
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signOverHttp, startServer } from '../server/server-process.js';
import { runSiegel } from '../site/support.js';
import { startBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import {
  FRAGMENT_BYTES,
  type HostileRelay,
  startHostileRelay,
  startHostileSigner,
  startOversizedRelay,
} from '../support/relay/hostile-relay.mjs';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { pageHtml } from '../support/verdict-cases.js';

// Timeouts (docs/testing.md): hostile relays and signers: 9 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

const KEY = '5'.repeat(64);
const TOO_LARGE = 'sent a message larger than 2 MiB: connection closed (1009)';
/** The relay client's cap per message (MAX_RELAY_MESSAGE_BYTES), and the NIP-46 one (MAX_NIP46_MESSAGE_BYTES). */
const RELAY_CAP = 2 * 1024 * 1024;
const NIP46_CAP = 512 * 1024;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

let work: string;
let dist: string;
let site: StaticServer;
let oversized: Awaited<ReturnType<typeof startOversizedRelay>>;
/** Answers every REQ with nothing; its connections and their paths are counted. */
let counting: HostileRelay;
let event: NostrEvent;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'siegel-relay-hostile-'));
  dist = join(work, 'dist');
  await mkdir(dist);
  [site, oversized, counting] = await Promise.all([
    serveDirectory(dist),
    startOversizedRelay(),
    startHostileRelay(() => []),
  ]);
  // One signed page served at a loopback address; its event file removed, so verify asks relays, and its
  // block rewritten to name 100 relays (distinct paths on the counting relay).
  await writeFile(join(dist, 'index.html'), pageHtml('Hints', 'A page whose nevent names 100 relays.'));
  await signSite(dist, {
    site: site.url,
    signer: new LocalKeySigner(KEY),
    cacheFile: join(work, 'sign-cache.json'),
    logger: quiet,
    progress: false,
    parseWorkers: 0,
  });
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const id = analyzePage(html).signatureBlock?.eventId as string;
  event = JSON.parse(await readFile(join(dist, 'verify', `${id}.json`), 'utf8')) as NostrEvent;
  // Siegel writes at most 3 hints into a block; a hostile page writes what it likes.
  const block = renderSignatureBlock(event, { verifyUrl: `${site.url}verify/${id}`, relays: [counting.url] });
  const signed = applySignatureBlock(html, analyzePage(html), block);
  const hints = Array.from({ length: 100 }, (_, i) => `${counting.url}/hint-${i}`);
  const nevent = analyzePage(signed).signatureBlock?.nevent as string;
  const crafted = neventEncode({ id, author: event.pubkey, kind: event.kind, relays: hints });
  await writeFile(join(dist, 'index.html'), signed.replaceAll(nevent, crafted));
  expect(analyzePage(await readFile(join(dist, 'index.html'), 'utf8')).signatureBlock?.relays).toEqual(hints);
  await rm(join(dist, 'verify', `${id}.json`));
}, 60_000);

afterAll(async () => {
  await Promise.all([site?.close(), oversized?.close(), counting?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a relay sending a 64 MiB message', () => {
  it('RelayPublisher closes the socket with 1009 and says so; the relay is not asked again', async () => {
    const before = oversized.closeCodes.length;
    const publisher = new RelayPublisher([oversized.url]);
    try {
      const [result] = await publisher.publish([event]);
      expect(result?.accepted).toEqual([]);
      expect(result?.failed).toEqual([{ relay: oversized.url, reason: TOO_LARGE }]);
      await eventually(async () => oversized.closeCodes.length > before, 10_000);
      expect(oversized.closeCodes.slice(before)).toEqual([1009]);
      // It closed at its cap: of the 64 MiB, the relay sent no more than the fragment that crossed it.
      expect(oversized.largeBytesSent.slice(before)[0]).toBeLessThanOrEqual(RELAY_CAP + FRAGMENT_BYTES);
      // A second event: the same answer, no second connection.
      const [again] = await publisher.publish([
        finalizeEvent({ ...event, content: 'again' }, generateSecretKey()),
      ]);
      expect(again?.failed).toEqual([{ relay: oversized.url, reason: TOO_LARGE }]);
    } finally {
      publisher.close();
    }
  });

  it('`siegel verify --relay` closes the socket with 1009 and names the relay and why', async () => {
    const before = oversized.closeCodes.length;
    const result = await runSiegel(['verify', 'dist', '--relay', oversized.url], { cwd: work });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`event not found on relays \`${oversized.url}\` (${TOO_LARGE})`);
    await eventually(async () => oversized.closeCodes.length > before, 10_000);
    expect(oversized.closeCodes.slice(before)).toEqual([1009]);
    expect(oversized.largeBytesSent.slice(before)[0]).toBeLessThanOrEqual(RELAY_CAP + FRAGMENT_BYTES);
  });

  it('the file server closes the socket with 1009 and takes no more of the message than its 2 MiB cap', async () => {
    const bunker = await startBunker();
    const server = await startServer({ bunker, env: { SIEGEL_RELAYS: oversized.url } });
    const markdown = (title: string) =>
      new TextEncoder().encode(`---\nauthor: Jane Writer\ntitle: ${title}\n---\n# ${title}\n\nWords.\n`);
    try {
      // A first file while the relay behaves: the server's workers and connections are up.
      oversized.flood = false;
      const warm = await signOverHttp(server, 'calm.md', markdown('Calm'));
      expect(warm.body.published_to, JSON.stringify(warm.body)).toEqual([oversized.url]);
      oversized.flood = true;
      const before = oversized.closeCodes.length;
      const { status, body } = await signOverHttp(server, 'flood.md', markdown('Flood'));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.published_to).toEqual([]);
      await eventually(async () => oversized.closeCodes.length > before, 10_000);
      expect(oversized.closeCodes.slice(before)).toEqual([1009]);
      // Nothing of the 64 MiB was buffered past the cap: the relay sends a fragment only once the server had
      // read the last, and the server closed at the one that crossed 2 MiB. (It was a peak-RSS bound, which
      // other processes on a shared machine made noisy; a server that buffers the whole message and then
      // refuses it takes all 64 MiB here.)
      expect(oversized.largeBytesSent.slice(before)[0]).toBeLessThanOrEqual(RELAY_CAP + FRAGMENT_BYTES);
      expect(server.child.exitCode).toBeNull();
    } finally {
      oversized.flood = true;
      await server.stop();
      await bunker.stop();
    }
  });
});

describe('relay hints in `siegel verify`', () => {
  it('a page naming 100 relays costs at most 5 connections (a live site at a local address may name local relays)', async () => {
    const before = counting.paths.length;
    const result = await runSiegel(['verify', site.url], { cwd: work });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 valid, 0 invalid, 1 not found');
    expect(counting.paths.slice(before)).toEqual([0, 1, 2, 3, 4].map((i) => `/hint-${i}`));
    const named = /event not found on relays (.*)$/m.exec(result.stdout)?.[1] ?? '';
    expect(named.match(/\(not there\)/g)).toHaveLength(5);
  });

  it('in a directory, loopback hints from page content are not followed; a --relay the user names is', async () => {
    const before = counting.paths.length;
    const result = await runSiegel(['verify', 'dist'], { cwd: work });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "no relay to ask (the block's nevent names none that may be asked: a hint read from a page must be a wss:// relay on a public host; add `--relay`)",
    );
    expect(counting.paths.slice(before)).toEqual([]);
    const named = await runSiegel(['verify', 'dist', '--relay', `${counting.url}/named`], { cwd: work });
    expect(named.stdout).toContain(`event not found on relays \`${counting.url}/named\` (not there)`);
    expect(counting.paths.slice(before)).toEqual(['/named']);
  });
});

describe('a relay sending what is not an event', () => {
  it('counts it as not checking out and prints nothing of it (nostr-tools would log it to the console)', async () => {
    const liar = await startHostileRelay(() => [null, '\u001b[31mred', { id: 7 }]);
    try {
      const result = await runSiegel(['verify', 'dist', '--relay', liar.url], { cwd: work });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`\`${liar.url}\` (sent 3 events that did not check out)`);
      expect(result.stderr).toBe('');
    } finally {
      await liar.close();
    }
  });
});

describe('a hostile NIP-46 signer', () => {
  /** `siegel sign` of a two-page site through the signer at `uri`, in a project of its own. */
  async function signThrough(uri: string, name: string) {
    const project = join(work, name);
    await mkdir(join(project, 'dist'), { recursive: true });
    for (const page of ['index', 'about'])
      await writeFile(join(project, 'dist', `${page}.html`), pageHtml(page, `The ${page} page.`));
    return runSiegel(['sign', 'dist'], { cwd: project, env: { BUNKER_URL: uri, SITE_URL: site.url } });
  }

  it('a NIP-04 reply ends `siegel sign` with a bunker_error naming the signer, no uncaught exception', async () => {
    const signer = await startHostileSigner((request, { secretKey, client }) =>
      nip04.encrypt(secretKey, client, JSON.stringify({ id: request.id, result: 'ack' })),
    );
    try {
      const result = await signThrough(signer.uri, 'nip04');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `The NIP-46 signer \`${signer.pubkey}\` sent a NIP-04 encrypted reply; Siegel speaks NIP-46 with NIP-44 encryption only`,
      );
      expect(result.stderr).not.toMatch(/unexpected error|Uncaught|\n\s+at /);
      expect(signer.requests.map((request) => request.method)).toEqual(['connect']);
      // The same through the API: the error's code.
      const error = await signSite(join(work, 'nip04', 'dist'), {
        site: site.url,
        env: { BUNKER_URL: signer.uri },
        cacheFile: join(work, 'nip04-api-cache.json'),
        logger: quiet,
      }).catch((caught: unknown) => caught);
      expect((error as SiegelError).code).toBe('bunker_error');
    } finally {
      await signer.close();
    }
  });

  it('a relay that confirms and answers each request only after 5 s still carries it (the request timeout, not 4.4 s)', async () => {
    // A signer (or its relay) that takes 5 s per request, well within the request timeout (30 s):
    // nostr-tools' default publish timeout (4.4 s) failed each one ("publish timed out", "No relay of the
    // NIP-46 signer is reachable") — also a signer waiting for a person to approve.
    const signer = await startHostileSigner(
      (request, { secretKey, client }) => {
        const result =
          request.method === 'get_public_key'
            ? getPublicKey(secretKey)
            : request.method === 'sign_event'
              ? JSON.stringify(finalizeEvent(JSON.parse(request.params[0] ?? '{}'), secretKey))
              : 'ack';
        return nip44.encrypt(
          JSON.stringify({ id: request.id, result }),
          nip44.getConversationKey(secretKey, client),
        );
      },
      { delayMs: 5_000 },
    );
    try {
      const result = await signThrough(signer.uri, 'slow-ok');
      expect(result.stderr).not.toMatch(/timed out|unreachable/i);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Siegel: 2 signed');
    } finally {
      await signer.close();
    }
  });

  it('a 30 MB reply closes the socket (1009) and ends `siegel sign` with a bunker_error naming the signer', async () => {
    const signer = await startHostileSigner(() => 'x'.repeat(30_000_000));
    try {
      const result = await signThrough(signer.uri, 'huge');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `The NIP-46 signer \`${signer.pubkey}\`: relay \`${signer.url}\` sent a message larger than 512 KiB, more than any NIP-46 reply; the connection was closed (1009).`,
      );
      expect(result.stderr).not.toMatch(/unexpected error|Uncaught|\n\s+at /);
      await eventually(async () => signer.closeCodes.includes(1009), 10_000);
      // Refused at the 512 KiB cap: the relay sent no more of the 30 MB than the fragment that crossed it.
      const refused = signer.closeCodes.indexOf(1009);
      expect(signer.largeBytesSent[refused]).toBeLessThanOrEqual(NIP46_CAP + FRAGMENT_BYTES);
    } finally {
      await signer.close();
    }
  });
});
