// The careful client of `siegel verify <url>` against real HTTP servers on loopback (issue 10). The site
// under test is on loopback, so its own host may be reached: the rule that matters is what else may not.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ResolvedAddress, SiteClient } from '../src/net/site-client.js';
import { zeroBlock } from './support/deflate-bomb.js';
import { siegelRejection } from './support/rejection.js';

interface TestServer {
  url: string;
  port: number;
  requests: Array<{ path: string; host: string | undefined }>;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', host: req.headers.host });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, requests, close: async () => {} };
}

const html = (res: ServerResponse, body: string) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

const PAGE = { maxBytes: 1024 * 1024, accept: 'text/html' };

describe('SiteClient', () => {
  it('gets a page and follows redirects within the site, naming the final URL', async () => {
    const site = await serve((req, res) => {
      if (req.url === '/docs') res.writeHead(301, { location: '/docs/' }).end();
      else html(res, `<p>${req.url}</p>`);
    });
    const client = new SiteClient({ site: new URL(`${site.url}/`) });
    const response = await client.get(new URL(`${site.url}/docs`), PAGE);
    expect(response.status).toBe(200);
    expect(response.url.href).toBe(`${site.url}/docs/`);
    expect(response.body?.toString()).toBe('<p>/docs/</p>');
    // Not wanted (not HTML, say): the body is not read.
    const skipped = await client.get(new URL(`${site.url}/x`), { ...PAGE, wantBody: () => false });
    expect(skipped.body).toBeUndefined();
  });

  it('refuses a redirect out of the site — another port, another loopback host, localhost, a metadata address — unless allowed', async () => {
    const other = await serve((_req, res) => html(res, 'other'));
    const targets = [
      `${other.url}/`,
      `http://127.0.0.2:${other.port}/`,
      `http://localhost:${other.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `https://127.0.0.1:${other.port}/`,
    ];
    const site = await serve((req, res) => {
      res.writeHead(302, { location: targets[Number(req.url?.slice(1))] as string }).end();
    });
    const client = new SiteClient({ site: new URL(`${site.url}/`) });
    for (const [index, target] of targets.entries()) {
      const error = await siegelRejection(client.get(new URL(`${site.url}/${index}`), PAGE));
      expect(error.message).toBe(
        `\`${site.url}/${index}\` redirects to \`${target}\`, outside the site \`${site.url}\`: not followed (allow that origin with \`--allow-redirects-to ${new URL(target).origin}\`)`,
      );
    }
    expect(other.requests).toEqual([]);
    // Allowed by the user: followed (the other server is on the site's own address).
    const allowing = new SiteClient({ site: new URL(`${site.url}/`), allowRedirectsTo: [other.url] });
    expect((await allowing.get(new URL(`${site.url}/0`), PAGE)).body?.toString()).toBe('other');
    // Allowed as an origin, but on a loopback address that is not the site's: still refused, unconnected.
    const allowingAll = new SiteClient({
      site: new URL(`${site.url}/`),
      allowRedirectsTo: targets.slice(1, 4),
    });
    expect((await siegelRejection(allowingAll.get(new URL(`${site.url}/1`), PAGE))).message).toBe(
      "Refused to connect to `127.0.0.2`: a loopback address — siegel verify reaches loopback, link-local and private addresses only for the site's own host",
    );
    expect((await siegelRejection(allowingAll.get(new URL(`${site.url}/3`), PAGE))).message).toMatch(
      /^Refused to connect to `169\.254\.169\.254`: a link-local address — /,
    );
    expect(() => new SiteClient({ site: new URL(site.url), allowRedirectsTo: ['ftp://x'] })).toThrow(
      '`--allow-redirects-to` takes an origin such as `https://www.example.com`, got `ftp://x`',
    );
  });

  it('checks the address a name resolves to, resolves it once, and connects to exactly that address', async () => {
    let site: TestServer | undefined;
    const names: Record<string, ResolvedAddress[]> = {
      'site.test': [{ address: '127.0.0.1', family: 4 }],
      'meta.test': [{ address: '169.254.169.254', family: 4 }],
      'mapped.test': [{ address: '::ffff:7f00:2', family: 6 }],
      'lan.test': [{ address: '192.168.1.20', family: 4 }],
      'same.test': [{ address: '127.0.0.1', family: 4 }],
    };
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      const found = names[host];
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    };
    site = await serve((req, res) => {
      const to = req.url?.slice(1) ?? '';
      if (to) res.writeHead(302, { location: `http://${to}:${site?.port}/` }).end();
      else html(res, 'home');
    });
    const origins = [...Object.keys(names), 'nowhere.test'].map((host) => `http://${host}:${site?.port}`);
    const client = new SiteClient({
      site: new URL(`http://site.test:${site.port}/`),
      allowRedirectsTo: origins,
      resolve,
    });
    for (let i = 0; i < 3; i++)
      expect((await client.get(new URL(`http://site.test:${site.port}/`), PAGE)).body?.toString()).toBe(
        'home',
      );
    // The name no system resolver knows reached the server: the connection went to the checked address.
    expect(site.requests.map((request) => request.host)).toEqual(Array(3).fill(`site.test:${site.port}`));
    expect(asked).toEqual(['site.test']);
    for (const [host, what] of [
      ['meta.test', '`169.254.169.254`): a link-local address'],
      ['mapped.test', '`::ffff:7f00:2`): a loopback address (127.0.0.2, as IPv4-mapped IPv6)'],
      ['lan.test', '`192.168.1.20`): a private address'],
    ]) {
      const error = await siegelRejection(client.get(new URL(`http://site.test:${site.port}/${host}`), PAGE));
      expect(error.message).toBe(
        `Refused to connect to \`${host}\` (${what} — siegel verify reaches loopback, link-local and private addresses only for the site's own host`,
      );
    }
    // A name for the site's own address is the site's machine: allowed (its origin was allowed above).
    expect(
      (await client.get(new URL(`http://site.test:${site.port}/same.test`), PAGE)).body?.toString(),
    ).toBe('home');
    expect(
      (await siegelRejection(client.get(new URL(`http://site.test:${site.port}/nowhere.test`), PAGE)))
        .message,
    ).toBe('Cannot resolve `nowhere.test` (ENOTFOUND)');
    // A URL outside the site and the allowed origins is not fetched at all.
    expect(
      (await siegelRejection(client.get(new URL(`http://elsewhere.test:${site.port}/`), PAGE))).message,
    ).toBe(
      `\`http://elsewhere.test:${site.port}/\` is outside the site \`http://site.test:${site.port}\`: not fetched`,
    );
    expect(asked.filter((host) => host === 'meta.test')).toHaveLength(1);
  });

  it('stops at a redirect loop and after too many redirects', async () => {
    const site = await serve((req, res) => {
      const n = Number(req.url?.slice(1));
      if (req.url === '/a') res.writeHead(307, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(308, { location: '/a' }).end();
      else res.writeHead(302, { location: `/${n + 1}` }).end();
    });
    const client = new SiteClient({ site: new URL(site.url) });
    expect((await siegelRejection(client.get(new URL(`${site.url}/a`), PAGE))).message).toBe(
      `\`${site.url}/a\` redirects in a loop: \`${site.url}/a\` → \`${site.url}/b\` → \`${site.url}/a\``,
    );
    expect((await siegelRejection(client.get(new URL(`${site.url}/0`), PAGE))).message).toBe(
      `\`${site.url}/0\` redirects more than 5 times: not followed further`,
    );
    expect(site.requests.filter((request) => /^\/\d+$/.test(request.path))).toHaveLength(6);
  });

  it('bounds a body as sent and as unpacked: endless, announced too large, a gzip bomb; unpacks gzip, deflate (both forms) and br', async () => {
    const block = await zeroBlock();
    const text = '<p>unpacked ✓</p>'.repeat(100);
    const site = await serve((req, res) => {
      if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (res.write(chunk));
        };
        res.on('drain', pump);
        pump();
      } else if (req.url === '/announced') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(10 * 1024 ** 3) });
        res.write('x');
      } else if (req.url === '/bomb') {
        // 10 GiB of zeros in 10 MB: a gzip header, then the same deflate block again and again.
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.write(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]));
        let sent = 0;
        const pump = () => {
          while (sent++ < 10_240 && res.write(block));
        };
        res.on('drain', pump);
        pump();
      } else {
        const [encoding, body] =
          req.url === '/gzip'
            ? ['gzip', gzipSync(text)]
            : req.url === '/deflate'
              ? ['deflate', deflateSync(text)]
              : req.url === '/raw-deflate'
                ? ['deflate', deflateRawSync(text)]
                : req.url === '/br'
                  ? ['br', brotliCompressSync(text)]
                  : ['zstd', Buffer.from('x')];
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': encoding }).end(body);
      }
    });
    const client = new SiteClient({ site: new URL(site.url) });
    expect((await siegelRejection(client.get(new URL(`${site.url}/endless`), PAGE))).message).toBe(
      `\`${site.url}/endless\` sent more than 1 MiB (the page limit, \`--max-page-bytes\`): stopped reading`,
    );
    expect((await siegelRejection(client.get(new URL(`${site.url}/announced`), PAGE))).message).toBe(
      `\`${site.url}/announced\` announces 10 GiB (Content-Length), more than 1 MiB (the page limit, \`--max-page-bytes\`): not read`,
    );
    expect((await siegelRejection(client.get(new URL(`${site.url}/bomb`), PAGE))).message).toBe(
      `\`${site.url}/bomb\` unpacks (gzip) to more than 1 MiB (the page limit, \`--max-page-bytes\`): stopped reading`,
    );
    for (const path of ['/gzip', '/deflate', '/raw-deflate', '/br'])
      expect((await client.get(new URL(`${site.url}${path}`), PAGE)).body?.toString()).toBe(text);
    expect((await siegelRejection(client.get(new URL(`${site.url}/zstd`), PAGE))).message).toBe(
      `\`${site.url}/zstd\` sent Content-Encoding \`zstd\`, which siegel verify does not take (it asks for gzip, deflate or br)`,
    );
  });

  it('cuts off a server that drips a byte at a time (the request timeout), and ends everything at the total timeout', async () => {
    let dripping = 0;
    const site = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      dripping++;
      const drip = setInterval(() => res.write('x'), 100);
      res.on('close', () => {
        clearInterval(drip);
        dripping--;
      });
    });
    // The timeouts are the client's AbortSignal.timeout, which a fake clock does not drive: real time here.
    // Lower bounds: a timer never fires early. Upper bounds: ceilings against a hang (the drip goes on for
    // good), the timer's own time plus up to 5 s for a machine busy with other tests.
    const perRequest = new SiteClient({ site: new URL(site.url), requestTimeoutMs: 400 });
    let start = performance.now();
    expect((await siegelRejection(perRequest.get(new URL(`${site.url}/`), PAGE))).message).toBe(
      `\`${site.url}/\` did not answer in full within 0.4 s (the request timeout, \`--request-timeout\`)`,
    );
    let elapsed = performance.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(5_400);
    // Cut off, not left reading: the client closed the dripping connection.
    await vi.waitFor(() => expect(dripping).toBe(0), { timeout: 5_000, interval: 20 });
    const total = new SiteClient({ site: new URL(site.url), requestTimeoutMs: 60_000, totalTimeoutMs: 600 });
    start = performance.now();
    const stopped = await siegelRejection(total.get(new URL(`${site.url}/`), PAGE));
    elapsed = performance.now() - start;
    expect(stopped.message).toBe(
      'siegel verify stopped: the check took longer than 0.6 s in all (the total timeout, `--total-timeout`)',
    );
    expect(elapsed).toBeLessThan(5_600);
    await vi.waitFor(() => expect(dripping).toBe(0), { timeout: 5_000, interval: 20 });
    expect(total.expired?.message).toBe(stopped.message);
    // Nothing more is sent once the time is up.
    const before = site.requests.length;
    await siegelRejection(total.get(new URL(`${site.url}/`), PAGE));
    expect(site.requests.length).toBe(before);
  });
});
