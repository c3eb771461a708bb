// Issue 38, acceptances 2 and 5: verify by URL never becomes a path into the server's own network, and it
// is bounded. With the default address policy, loopback, private, link-local and metadata addresses —
// given directly, by a name that resolves to them, through a redirect — are refused with a clear error and
// no connection (counted at a loopback server). A burst of 50 requests for one URL makes one check (one
// fetch of the page); a client over its rate gets 429 with `Retry-After`; a target host over its rate is
// not fetched.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { LocalKeySigner, PUBLIC_ADDRESSES_ONLY, readSignatureBlock, signSite } from '@siegel/core';
import { neventEncode } from 'nostr-tools/nip19';
import { finalizeEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTestApp } from '../../server/test/test-app.js';
import { type RunningRelay, sendEvent, startRelay } from '../support/relay-process.js';
import { pageHtml } from '../support/verdict-cases.js';

// Timeouts (docs/testing.md): a few checks of one small page on loopback, each well under a second.
vi.setConfig({ testTimeout: 60_000 });

/** A loopback site that counts TCP connections and requests per path, with `/redirect?to=` (302). */
interface CountingSite {
  url: string;
  port: number;
  connections: number;
  requests: Map<string, number>;
  close(): Promise<void>;
}

async function countingSite(dir: string, host = '127.0.0.1'): Promise<CountingSite> {
  const site = { connections: 0, requests: new Map<string, number>() } as CountingSite;
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    site.requests.set(url.pathname, (site.requests.get(url.pathname) ?? 0) + 1);
    if (url.pathname === '/redirect') {
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    }
    const body = await readFile(join(dir, normalize(url.pathname))).catch(() => undefined);
    if (body === undefined) response.writeHead(404).end('not found');
    else
      response
        .writeHead(200, { 'content-type': url.pathname.endsWith('.json') ? 'application/json' : 'text/html' })
        .end(body);
  });
  server.on('connection', () => site.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  site.port = (server.address() as { port: number }).port;
  site.url = `http://${host}:${site.port}/`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return site;
}

let root: string;
let site: CountingSite;
/** Another loopback server, the target of the redirect: it must see no connection. */
let target: CountingSite;
/** A stranger's host on loopback (127.0.0.3; Linux routes all of 127/8 to loopback): NIP-05 domain, relay. */
let stranger: CountingSite;
let relay: RunningRelay;
const KEY = '7'.repeat(64);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-verify-by-url-limits-'));
  site = await countingSite(root);
  target = await countingSite(root);
  stranger = await countingSite(root, '127.0.0.3');
  relay = await startRelay();
  for (const name of ['a.html', 'b.html', 'c.html', 'd.html', 'e.html'])
    await writeFile(join(root, name), pageHtml(name, 'Words signed for verify by URL.'));
  await signSite(root, {
    site: site.url,
    signer: new LocalKeySigner(KEY),
    cacheFile: join(tmpdir(), `siegel-limits-${process.pid}.sign-cache.json`),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
});

afterAll(async () => {
  await site?.close();
  await target?.close();
  await stranger?.close();
  await relay?.stop();
  await rm(root, { recursive: true, force: true });
});

/** Only the counting site's own literal address besides the default policy: the first hop of a redirect. */
const SITE_ONLY = {
  refuse: (address: string, host: string) =>
    host === '127.0.0.1' ? undefined : PUBLIC_ADDRESSES_ONLY.refuse(address, host),
};

describe('with the default address policy, nothing but the public internet is fetched', () => {
  it('loopback, private, link-local and metadata addresses, and names of loopback: refused, no connection', async () => {
    const app = await makeTestApp();
    const before = site.connections;
    try {
      const cases: Array<[string, RegExp]> = [
        [`${site.url}a.html`, /loopback/],
        [`http://[::1]:${site.port}/a.html`, /loopback/],
        [`http://localhost:${site.port}/a.html`, /loopback/],
        ['http://10.0.0.1/a.html', /private/],
        ['http://192.168.1.1/a.html', /private/],
        ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ];
      for (const [url, why] of cases) {
        const response = await app.app.request(`/api/verify-page?url=${encodeURIComponent(url)}`);
        const body = (await response.json()) as { error: string; message: string };
        expect(response.status, url).toBe(502);
        expect(body.error).toBe('PAGE_UNAVAILABLE');
        expect(body.message, url).toMatch(why);
        // The page says so too.
        const page = await app.app.request(`/verify?url=${encodeURIComponent(url)}`);
        expect(page.status).toBe(502);
        expect(await page.text()).toMatch(why);
      }
      expect(site.connections).toBe(before);
    } finally {
      await app.close();
    }
  });

  it('a redirect to a loopback name: its target judged by the policy, refused, no connection there', async () => {
    const app = await makeTestApp({ connectPolicy: SITE_ONLY });
    try {
      const to = `http://localhost:${target.port}/a.html`;
      const url = `${site.url}redirect?to=${encodeURIComponent(to)}`;
      const response = await app.app.request(`/api/verify-page?url=${encodeURIComponent(url)}`);
      const body = (await response.json()) as { error: string; message: string };
      expect(response.status, JSON.stringify(body)).toBe(502);
      // Another origin may be followed (http → https, a bare domain → www.), its host judged like any.
      expect(body.message).toMatch(
        /^Refused to connect to `localhost` \(`(127\.0\.0\.1|::1)`\): a loopback address/,
      );
      expect(site.requests.get('/redirect')).toBe(1);
      expect(target.connections).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('relay hints and NIP-05 domains go through the same policy', () => {
  it('a relay hint and a NIP-05 domain on a loopback host: not connected to, the reason in the answer', async () => {
    // The signer's profile, on the verifier's relay (127.0.0.1, allowed), names a NIP-05 domain on 127.0.0.3.
    const name = `bob@127.0.0.3:${stranger.port}`;
    const profile = {
      kind: 0,
      created_at: 1_700_000_000,
      tags: [],
      content: JSON.stringify({ nip05: name }),
    };
    await sendEvent(relay.url, finalizeEvent(profile, Buffer.from(KEY, 'hex')));
    // e.html: its event file gone, its block's nevent naming only a relay on 127.0.0.3.
    const html = await readFile(join(root, 'e.html'), 'utf8');
    const id = readSignatureBlock(html)?.eventId as string;
    const nevent = neventEncode({ id, relays: [`ws://127.0.0.3:${stranger.port}`] });
    await writeFile(join(root, 'e.html'), html.replace(/nostr:nevent1[0-9a-z]+/g, `nostr:${nevent}`));
    await rm(join(root, 'verify', `${id}.json`));
    const app = await makeTestApp({ connectPolicy: SITE_ONLY, verifyRelays: [relay.url] });
    try {
      const ask = async (page: string) => {
        const response = await app.app.request(`/api/verify-page?url=${encodeURIComponent(site.url + page)}`);
        expect(response.status).toBe(200);
        // biome-ignore lint/suspicious/noExplicitAny: the JSON answer
        return (await response.json()) as any;
      };
      const checked = await ask('a.html');
      expect(checked.verdict).toBe('valid');
      expect(checked.signer.nip05).toMatchObject({ name, state: 'unreachable' });
      expect(checked.signer.nip05.reason).toContain('Refused to connect to `127.0.0.3`: a loopback address');
      const missing = await ask('e.html');
      expect(missing.verdict).toBe('not_found');
      expect(missing.problems[0].code).toBe('event.not_found');
      expect(missing.problems[0].message).toContain('Refused to connect to `127.0.0.3`');
      expect(stranger.connections).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('verify by URL is bounded', () => {
  const ANY_ADDRESS = { refuse: () => undefined };
  const ask = (app: Awaited<ReturnType<typeof makeTestApp>>, url: string) =>
    app.app.request(`/api/verify-page?url=${encodeURIComponent(url)}`);

  it('a burst of 50 requests for one URL makes one check: the page is fetched as often as by one check', async () => {
    const app = await makeTestApp({
      connectPolicy: ANY_ADDRESS,
      verifyUrl: { rateLimitPerMinute: 1000, hostRateLimitPerMinute: 1000 },
    });
    try {
      // One check alone: how often it fetches its page (as a browser, and as a plain client).
      const before = site.requests.get('/a.html') ?? 0;
      expect((await ask(app, `${site.url}a.html`)).status).toBe(200);
      const perCheck = (site.requests.get('/a.html') ?? 0) - before;
      expect(perCheck).toBeGreaterThan(0);
      const answers = await Promise.all(Array.from({ length: 50 }, () => ask(app, `${site.url}b.html`)));
      expect(answers.map((answer) => answer.status)).toEqual(new Array(50).fill(200));
      const bodies = await Promise.all(answers.map((answer) => answer.json()));
      expect(new Set(bodies.map((body) => (body as { checked_at: string }).checked_at)).size).toBe(1);
      expect(site.requests.get('/b.html')).toBe(perCheck);
      // Asked again within the cache's time: answered from the cache, not fetched.
      expect((await ask(app, `${site.url}b.html#part`)).status).toBe(200);
      expect(site.requests.get('/b.html')).toBe(perCheck);
    } finally {
      await app.close();
    }
  });

  it('a client over its rate: 429 with Retry-After, on the JSON and on the page', async () => {
    const app = await makeTestApp({
      connectPolicy: ANY_ADDRESS,
      verifyUrl: { rateLimitPerMinute: 3, hostRateLimitPerMinute: 1000 },
    });
    try {
      for (let i = 0; i < 3; i++) expect((await ask(app, `${site.url}c.html`)).status).toBe(200);
      const over = await ask(app, `${site.url}c.html`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await over.json()) as { error: string }).error).toBe('RATE_LIMITED');
      const page = await app.app.request(`/verify?url=${encodeURIComponent(`${site.url}c.html`)}`);
      expect(page.status).toBe(429);
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await page.text()).toContain('Too many page checks from this client');
    } finally {
      await app.close();
    }
  });

  it('a target host over its rate: not fetched, 503 with Retry-After', async () => {
    const app = await makeTestApp({
      connectPolicy: ANY_ADDRESS,
      verifyUrl: { rateLimitPerMinute: 1000, hostRateLimitPerMinute: 2, cacheMs: 0 },
    });
    try {
      expect((await ask(app, `${site.url}d.html`)).status).toBe(200);
      expect((await ask(app, `${site.url}d.html`)).status).toBe(200);
      const fetched = site.requests.get('/d.html');
      const connections = site.connections;
      const over = await ask(app, `${site.url}d.html`);
      const body = (await over.json()) as { error: string; message: string };
      expect(over.status).toBe(503);
      expect(body.error).toBe('HOST_RATE_LIMITED');
      expect(body.message).toContain('127.0.0.1');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(site.requests.get('/d.html')).toBe(fetched);
      expect(site.connections).toBe(connections);
    } finally {
      await app.close();
    }
  });

  it('`hash` with `url`, a malformed or non-http(s) url: 400 with a clear message', async () => {
    const app = await makeTestApp();
    const before = site.connections;
    try {
      const hash = 'a'.repeat(64);
      for (const path of [
        `/api/verify-page?url=${encodeURIComponent(`${site.url}a.html`)}&hash=${hash}`,
        `/api/verify?hash=${hash}&url=${encodeURIComponent(`${site.url}a.html`)}`,
      ]) {
        const response = await app.app.request(path);
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { message: string }).message).toContain('not both');
      }
      // An empty `url`: the form alone, nothing fetched; the hash page links to it.
      const form = await app.app.request('/verify?url=');
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('id="url-form"');
      expect(await (await app.app.request('/verify')).text()).toContain('href="/verify?url="');
      const page = await app.app.request(`/verify?hash=${hash}&url=${encodeURIComponent(site.url)}`);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('not both');
      for (const url of [
        'file:///etc/passwd',
        'javascript:alert(1)',
        'not a url',
        '',
        'http://u:p@example.com/',
      ]) {
        const response = await app.app.request(`/api/verify-page?url=${encodeURIComponent(url)}`);
        const body = (await response.json()) as { error: string; message: string };
        expect(response.status, url).toBe(400);
        expect(body.error).toBe('INVALID_URL');
        expect(body.message).toMatch(/http\(s\) URL|user name/);
      }
      expect(site.connections).toBe(before);
    } finally {
      await app.close();
    }
  });
});
