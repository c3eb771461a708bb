// Issue 35, item 5 and acceptance 5: a server that sends the signed page to tools and a forged one (another
// `<main>`, the same signature block) to a browser's navigation — told apart by `Sec-Fetch-Dest` or by
// the User-Agent — made every verifier say `valid` while readers read the forgery. Now `siegel verify <url>`
// (the real CLI, as a process) asks for pages as a browser's navigation does, so it gets the forged page and
// says invalid (`hash.mismatch`); with `--check-cloaking` it also asks as a plain client and names the
// difference (`page.cloaked`, exit 1). An honest server: both readings equal, valid.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { analyzePage } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signTestSite } from '../support/sign-test-site.js';
import { pageHtml } from '../support/verdict-cases.js';
import { runSiegel } from './support.js';

// Timeouts (docs/testing.md): up to three CLI runs per test, 3–4 s each at a load of 18 on 2 cores.
vi.setConfig({ testTimeout: 60_000 });

/** How the server tells a reader's browser from a tool; `honest` sends everyone the signed page. */
type Mode = 'honest' | 'sec-fetch-dest' | 'user-agent';

const IS_BROWSER: Record<Mode, (headers: IncomingHttpHeaders) => boolean> = {
  honest: () => false,
  'sec-fetch-dest': (headers) => headers['sec-fetch-dest'] === 'document',
  'user-agent': (headers) => /Mozilla\/5\.0 .*(Chrome|Firefox|Safari)\//.test(headers['user-agent'] ?? ''),
};

let root: string;
let dir: string;
let server: Server;
let site: string;
let mode: Mode = 'honest';
/** Every request: its path and headers. */
const requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
let signedHash: string;
let forgedHash: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-cloaking-'));
  dir = join(root, 'site');
  await mkdir(dir);
  server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.push({ path, headers: request.headers });
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    let body: string;
    try {
      body = await readFile(file, 'utf8');
    } catch {
      response.writeHead(404).end();
      return;
    }
    const html = file.endsWith('.html');
    if (html && IS_BROWSER[mode](request.headers)) body = body.replace('Signed words.', 'Forged words.');
    response
      .writeHead(200, { 'content-type': html ? 'text/html; charset=utf-8' : 'application/json' })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  await writeFile(join(dir, 'index.html'), pageHtml('Home', 'Signed words.'));
  await signTestSite(dir, site, '7'.repeat(64), join(root, 'sign-cache.json'));
  const signed = await readFile(join(dir, 'index.html'), 'utf8');
  signedHash = analyzePage(signed).hash as string;
  forgedHash = analyzePage(signed.replace('Signed words.', 'Forged words.')).hash as string;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(root, { recursive: true, force: true });
});

interface Report {
  ok: boolean;
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string; message: string }> }>;
}

/** `siegel verify <site> --json …` under `serve`: exit code, the home page's verdict and codes, its problems. */
async function verify(serve: Mode, ...args: string[]) {
  mode = serve;
  requests.length = 0;
  const result = await runSiegel(['verify', site, '--json', ...args], { cwd: root });
  const report = JSON.parse(result.stdout) as Report;
  const page = report.pages.find((p) => p.page === site);
  // No relay of the verifier's here: every page also carries `manifest.unchecked` (issue 36), which says
  // nothing about cloaking — checked once below, left out of `judged`.
  const problems = page?.problems.filter((p) => p.code !== 'manifest.unchecked') ?? [];
  return {
    code: result.code,
    unchecked: page?.problems.some((p) => p.code === 'manifest.unchecked'),
    judged: [page?.verdict, ...problems.map((p) => p.code)],
    messages: page?.problems.map((p) => p.message) ?? [],
  };
}

describe('siegel verify <url> against a server that cloaks', () => {
  for (const serve of ['sec-fetch-dest', 'user-agent'] as const) {
    it(`cloaking by ${serve}: without --check-cloaking the CLI gets the browser's (forged) page: invalid`, async () => {
      const run = await verify(serve);
      expect(run.code).toBe(1);
      expect(run.judged).toEqual(['invalid', 'hash.mismatch', 'block.hash']);
      expect(run.messages[0]).toContain(forgedHash);
    });

    it(`cloaking by ${serve}: --check-cloaking names both readings (page.cloaked), exit 1`, async () => {
      const run = await verify(serve, '--check-cloaking');
      expect(run.code).toBe(1);
      expect(run.judged).toEqual(['invalid', 'hash.mismatch', 'block.hash', 'page.cloaked']);
      const cloaked = run.messages[2] as string;
      expect(cloaked).toContain(`a browser’s navigation got \`${forgedHash}\``);
      expect(cloaked).toContain(`a plain client \`${signedHash}\``);
    });
  }

  it('an honest server: both readings equal, valid, exit 0 — with and without --check-cloaking', async () => {
    expect(await verify('honest')).toMatchObject({ code: 0, judged: ['valid'], unchecked: true });
    expect(await verify('honest', '--check-cloaking')).toMatchObject({ code: 0, judged: ['valid'] });
    // The page twice: once as a browser's navigation, once as a plain client; the event once, plainly.
    const pages = requests.filter((request) => request.path === '/');
    expect(pages.map((request) => request.headers['sec-fetch-dest'])).toEqual(['document', undefined]);
    expect(pages.map((request) => request.headers['user-agent'])).toEqual([
      expect.stringMatching(/^Mozilla\/5\.0 .* Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/),
      'siegel-verify',
    ]);
    expect(pages[0]?.headers).toMatchObject({
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'none',
      'sec-fetch-user': '?1',
      'upgrade-insecure-requests': '1',
      'accept-language': 'en-US,en;q=0.9',
      accept: expect.stringMatching(/^text\/html,/),
    });
    // (verify/manifest.json, the site's copy of the manifest, is read too: a file, not the event.)
    const events = requests.filter((request) => /\/verify\/[0-9a-f]{64}\.json$/.test(request.path));
    expect(events).toHaveLength(1);
    expect(events[0]?.headers).toMatchObject({ 'user-agent': 'siegel-verify', accept: 'application/json' });
    expect(events[0]?.headers['sec-fetch-dest']).toBeUndefined();
  });

  it('--user-agent replaces the browser’s User-Agent of the page requests only; a directory refuses it', async () => {
    // A User-Agent the server does not take for a browser: the signed page, valid.
    expect(await verify('user-agent', '--user-agent', 'curl/8.0')).toMatchObject({
      code: 0,
      judged: ['valid'],
    });
    expect(requests.find((request) => request.path === '/')?.headers['user-agent']).toBe('curl/8.0');
    for (const flag of [['--user-agent', 'x'], ['--check-cloaking']]) {
      const result = await runSiegel(['verify', dir, ...flag], { cwd: root });
      expect(result.code, flag[0]).toBe(2);
      expect(result.stderr).toContain(`\`${flag[0]}\` is for verify <url>`);
    }
  });
});
