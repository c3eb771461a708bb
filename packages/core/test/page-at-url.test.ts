// `checkPageAtUrl` (issue 38): one page checked at its address under a connection policy, every
// connection of the check judged by it — the page, its event's relays, the signer's NIP-05 domain. The
// site is served on 127.0.0.2, a relay on 127.0.0.1 and a stranger's host on 127.0.0.3 (Linux routes all
// of 127/8 to loopback); the test's policy allows the first two and is otherwise the default. What the
// default refuses is counted at the servers: a refused host gets no connection at all.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { neventEncode } from 'nostr-tools/nip19';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRelay, sendEvent, startRelay } from '../../../test/support/relay-process.js';
import {
  type ConnectPolicy,
  checkPageAtUrl,
  PUBLIC_ADDRESSES_ONLY,
  readSignatureBlock,
  signSite,
} from '../src/index.js';
import { CountingSigner, collectingLogger, createFixtureProject, KEY_A } from './support/site-fixture.js';

const SITE_HOST = '127.0.0.2';
const STRANGER_HOST = '127.0.0.3';
const POLICY: ConnectPolicy = {
  refuse: (address, host) =>
    address === SITE_HOST || address === '127.0.0.1'
      ? undefined
      : PUBLIC_ADDRESSES_ONLY.refuse(address, host),
};

let relay: RunningRelay;
let site: {
  url: string;
  server: Server;
  dist: string;
  requests: string[];
  nostrJson: Record<string, string>;
};
let stranger: { server: Server; port: number; requests: number };
let silentRelay: { server: TcpServer; port: number; connections: number };
const cleanups: Array<() => Promise<unknown>> = [];

function listen(server: Server | TcpServer, host: string): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port)),
  );
}

beforeAll(async () => {
  relay = await startRelay();
  cleanups.push(() => relay.stop());
  const project = await createFixtureProject();
  cleanups.push(() => project.cleanup());
  const requests: string[] = [];
  const nostrJson: Record<string, string> = {};
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    requests.push(url.pathname);
    if (url.pathname === '/moved') {
      response.writeHead(302, { location: `http://${STRANGER_HOST}:${stranger.port}/` }).end();
      return;
    }
    if (url.pathname === '/.well-known/nostr.json') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ names: nostrJson }));
      return;
    }
    const path = url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname;
    try {
      const body = await readFile(normalize(join(project.dist, path)));
      const type = extname(path) === '.html' ? 'text/html; charset=utf-8' : 'application/json';
      response.writeHead(200, { 'content-type': type }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  const port = await listen(server, SITE_HOST);
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  site = { url: `http://${SITE_HOST}:${port}`, server, dist: project.dist, requests, nostrJson };
  await signSite(project.dist, {
    site: site.url,
    signer: new CountingSigner(KEY_A),
    cacheFile: project.cacheFile,
    logger: collectingLogger().logger,
    progress: false,
  });
  const strangerServer = createServer((_request, response) => {
    stranger.requests++;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"names":{}}');
  });
  stranger = { server: strangerServer, port: await listen(strangerServer, STRANGER_HOST), requests: 0 };
  cleanups.push(() => new Promise((resolve) => strangerServer.close(resolve)));
  const tcp = createTcpServer((socket) => {
    silentRelay.connections++;
    socket.destroy();
  });
  silentRelay = { server: tcp, port: await listen(tcp, STRANGER_HOST), connections: 0 };
  cleanups.push(() => new Promise((resolve) => tcp.close(resolve)));
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const pubkey = getPublicKey(Buffer.from(KEY_A, 'hex'));

async function publishProfile(nip05: string, createdAt: number): Promise<void> {
  const profile = { kind: 0, created_at: createdAt, tags: [], content: JSON.stringify({ nip05 }) };
  await sendEvent(relay.url, finalizeEvent(profile, Buffer.from(KEY_A, 'hex')));
}

describe('checkPageAtUrl', () => {
  it('checks a signed page: the verdict, the content as served and as text, the event, the confirmed NIP-05 name', async () => {
    site.nostrJson._ = pubkey;
    await publishProfile(`_@${SITE_HOST}:${new URL(site.url).port}`, 1_700_000_000);
    const result = await checkPageAtUrl(`${site.url}/about.html`, { policy: POLICY, relays: [relay.url] });
    expect(result.page.verdict).toBe('valid');
    expect(result.page.page).toBe(`${site.url}/about.html`);
    // Nothing was published: the verifier's relay answered without the site's manifest (a warning).
    expect(result.page.problems.map((p) => p.code)).toEqual(['manifest.missing']);
    expect(result.content?.html).toContain('<p>We <em>make</em> things.</p>');
    expect(result.content?.text).toBe('We make things.');
    expect(result.event).toMatchObject({ pubkey, url: `${site.url}/about.html` });
    expect(result.signer).toEqual({
      npub: result.event?.npub,
      nip05: { name: `_@${SITE_HOST}:${new URL(site.url).port}`, state: 'confirmed' },
    });
    expect(result.coverage).toMatch(/^A valid signature covers the markup of `main`/);
    // A page with no block and no <main> is an answer too, not an empty report.
    const bare = await checkPageAtUrl(`${site.url}/no-main.html`, { policy: POLICY });
    expect(bare.page).toMatchObject({ verdict: 'invalid', problems: [{ code: 'page.no_element' }] });
  });

  it('with the default policy, reaches no loopback page — by address or by name — and says why', async () => {
    const before = site.requests.length;
    await expect(checkPageAtUrl(`${site.url}/about.html`, { policy: PUBLIC_ADDRESSES_ONLY })).rejects.toThrow(
      `Refused to connect to \`${SITE_HOST}\`: a loopback address`,
    );
    await expect(
      checkPageAtUrl(`http://localhost:${new URL(site.url).port}/`, { policy: PUBLIC_ADDRESSES_ONLY }),
    ).rejects.toThrow(/Refused to connect to `localhost` \(`(127\.0\.0\.1|::1)`\): a loopback address/);
    // A redirect may lead to another origin, and its target is judged like any host: here refused.
    await expect(checkPageAtUrl(`${site.url}/moved`, { policy: POLICY })).rejects.toThrow(
      `Refused to connect to \`${STRANGER_HOST}\`: a loopback address`,
    );
    expect(stranger.requests).toBe(0);
    await expect(checkPageAtUrl('file:///etc/passwd', { policy: POLICY })).rejects.toThrow(
      'is not an http(s) URL',
    );
    expect(site.requests.slice(before)).toEqual(['/moved']);
  });

  it('asks no relay hint and no NIP-05 domain the policy refuses: no connection, the reason in the answer', async () => {
    // The signer's newest profile names a NIP-05 domain on the stranger's host.
    await publishProfile(`bob@${STRANGER_HOST}:${stranger.port}`, 1_700_000_100);
    const checked = await checkPageAtUrl(`${site.url}/about.html`, { policy: POLICY, relays: [relay.url] });
    expect(checked.page.verdict).toBe('valid');
    expect(checked.signer?.nip05).toMatchObject({
      name: `bob@${STRANGER_HOST}:${stranger.port}`,
      state: 'unreachable',
    });
    expect(checked.signer?.nip05?.reason).toContain(
      `Refused to connect to \`${STRANGER_HOST}\`: a loopback address`,
    );
    expect(stranger.requests).toBe(0);

    // The event file gone and the block's nevent naming a relay on the stranger's host: not asked.
    const page = join(site.dist, 'blog', 'first', 'index.html');
    const html = await readFile(page, 'utf8');
    const block = readSignatureBlock(html);
    const id = block?.eventId as string;
    const hint = `ws://${STRANGER_HOST}:${silentRelay.port}`;
    const nevent = neventEncode({ id, relays: [hint] });
    await writeFile(page, html.replace(/nostr:nevent1[0-9a-z]+/g, `nostr:${nevent}`));
    await rm(join(site.dist, 'verify', `${id}.json`));
    const missing = await checkPageAtUrl(`${site.url}/blog/first/`, { policy: POLICY });
    expect(missing.page.verdict).toBe('not_found');
    expect(missing.page.problems[0]?.code).toBe('event.not_found');
    expect(missing.page.problems[0]?.message).toContain(`Refused to connect to \`${STRANGER_HOST}\``);
    expect(silentRelay.connections).toBe(0);
  });
});
