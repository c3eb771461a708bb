// Issue 26, part 2 and the browser half of acceptance 1: a tool's backend (this Node side) mints upload
// tokens with its sign token; a page in Chromium, served from its own origin, imports the client's built
// dist as ES modules and signs, inspects and verifies through the real server process with the minted token
// only. Over-used, expired and wrong-origin tokens are refused with the typed errors; an origin not in
// SIGN_CORS_ORIGINS gets no CORS at all. Node: parallel uses never exceed a token's uses.
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  embedAuthor,
  mintUploadToken,
  OriginNotAllowedError,
  UnauthorizedError,
} from '../../packages/client/src/index.js';
import { type RunningServer, startServer } from '../server/server-process.js';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';

const CLIENT_DIST = fileURLToPath(new URL('../../packages/client/dist/', import.meta.url));
const FORMATS_DIST = fileURLToPath(new URL('../../packages/formats/dist/', import.meta.url));
/**
 * The page: it loads the client's dist as ES modules and nothing else (no token in it), with an import map
 * for its one dependency's writers (`@siegel/formats/embed`), as a page without a bundler would.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>Siegel client page</title>
<script type="importmap">{ "imports": { "@siegel/formats/embed": "/formats/embed.js" } }</script>
<script type="module">import * as siegel from '/client/index.js'; window.siegel = siegel;</script>`;

/** A static HTTP server on loopback: `/` is {@link PAGE}, `/client/…` the client's built dist, `/formats/…` its dependency's. */
async function startStatic(): Promise<{ origin: string; server: Server }> {
  const port = await freePort();
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    const dist = path.startsWith('/formats/') ? FORMATS_DIST : CLIENT_DIST;
    const file = normalize(join(dist, path.replace(/^\/(client|formats)\//, '')));
    if (!/^\/(client|formats)\//.test(path) || !file.startsWith(dist) || extname(file) !== '.js') {
      response.writeHead(404).end();
      return;
    }
    try {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(await readFile(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${port}`, server };
}

let bunker: RunningBunker;
let server: RunningServer;
let chromium: LaunchedChromium;
/** Listed in SIGN_CORS_ORIGINS: A (the tool's page) and C; B is not listed. */
const pages: Record<'A' | 'B' | 'C', { origin: string; server: Server }> = {} as never;
const minted: string[] = [];
const requests: { url: string; headers: Record<string, string>; body: string }[] = [];

async function mint(options: { origin?: string; uses?: number; ttlSeconds?: number } = {}) {
  const answer = await mintUploadToken({
    baseUrl: server.url,
    token: server.token,
    origin: pages.A.origin,
    ...options,
  });
  minted.push(answer.token);
  return answer;
}

/** A page on `origin`, with the client loaded. */
async function openPage(origin: string): Promise<Page> {
  const page = await chromium.context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => 'siegel' in window);
  return page;
}

/** What a page saw of one call: its result, or the error's class, code, status and details. */
type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; name: string; code?: string; status?: number; details?: unknown };

/**
 * In the page: draw a PNG of one colour, write `author` into it with `embedAuthor`, then run `steps` (inspect,
 * sign, verify, inspect again) with `createClient({ baseUrl, token })`; each step's outcome comes back.
 */
function runInPage(page: Page, args: { baseUrl: string; token: string; colour: string; steps: string[] }) {
  return page.evaluate(async ({ baseUrl, token, colour, steps }) => {
    // biome-ignore lint/suspicious/noExplicitAny: the module namespace the page put on window
    const siegel = (window as any).siegel;
    const canvas = new OffscreenCanvas(8, 6);
    const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
    context.fillStyle = colour;
    context.fillRect(0, 0, 8, 6);
    const png = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
    const bytes = await siegel.embedAuthor(png, {
      author: ['Ana Lima', 'Björn Ødegård'],
      title: 'From the browser',
    });
    const client = siegel.createClient({ baseUrl, token, retries: 0 });
    const outcomes = [];
    let hash: string | undefined;
    for (const step of steps) {
      try {
        let value: unknown;
        if (step === 'inspect') value = await client.inspect(bytes, { fileName: 'browser.png' });
        else if (step === 'sign') {
          const signed = await client.sign(bytes, { fileName: 'browser.png' });
          hash = signed.hash;
          value = signed;
        } else value = await client.verify(hash ?? '');
        outcomes.push({ ok: true, value });
      } catch (error) {
        const e = error as { name: string; code?: string; status?: number; details?: unknown };
        const classes = [
          'UploadTokenUsedUpError',
          'UploadTokenExpiredError',
          'UploadTokenOriginError',
          'NetworkError',
        ];
        const name = classes.find((n) => error instanceof siegel[n]) ?? e.name;
        outcomes.push({ ok: false, name, code: e.code, status: e.status, details: e.details });
      }
    }
    return outcomes;
  }, args) as Promise<Outcome[]>;
}

const colour = () => `rgb(${Math.floor(Math.random() * 256)}, ${Math.floor(Math.random() * 256)}, 77)`;

beforeAll(async () => {
  for (const name of ['A', 'B', 'C'] as const) pages[name] = await startStatic();
  bunker = await startBunker();
  server = await startServer({
    bunker,
    env: { SIGN_RATE_LIMIT: '1000', SIGN_CORS_ORIGINS: `${pages.A.origin},${pages.C.origin}` },
  });
  chromium = await launchChromium();
  chromium.context.on('request', async (request) => {
    requests.push({
      url: request.url(),
      headers: await request.allHeaders(),
      body: request.postData() ?? '',
    });
  });
}, 60_000);
afterAll(async () => {
  await chromium?.close();
  await server?.stop();
  await bunker?.stop();
  for (const page of Object.values(pages)) page.server.close();
  if (server) await rm(server.dataDir, { recursive: true, force: true });
});

describe('upload tokens in Chromium, against the real server', () => {
  it('a page on origin A signs, inspects and verifies with a 2-use token; a third upload is UploadTokenUsedUpError', async () => {
    const token = await mint({ uses: 2 });
    expect(token).toMatchObject({ origin: pages.A.origin, uses: 2 });
    const page = await openPage(pages.A.origin);
    const [inspected, signed, verified, third] = await runInPage(page, {
      baseUrl: server.url,
      token: token.token,
      colour: colour(),
      steps: ['inspect', 'sign', 'verify', 'inspect'],
    });
    expect(inspected).toMatchObject({
      ok: true,
      value: {
        signable: true,
        metadata: { authors: ['Ana Lima', 'Björn Ødegård'], title: 'From the browser' },
      },
    });
    expect(signed).toMatchObject({
      ok: true,
      value: { alreadySigned: false, metadata: { authors: ['Ana Lima', 'Björn Ødegård'] } },
    });
    expect(verified).toMatchObject({ ok: true, value: { found: true, verified: true } });
    expect(third).toMatchObject({
      ok: false,
      name: 'UploadTokenUsedUpError',
      code: 'UPLOAD_TOKEN_USED_UP',
      status: 401,
      details: { uses: 2 },
    });
    // Read back in Node: the server holds the record the page signed.
    const hash = (signed as { value: { hash: string } }).value.hash;
    const record = (await (await fetch(`${server.url}/api/verify?hash=${hash}`)).json()) as {
      verified: boolean;
    };
    expect(record.verified).toBe(true);
    await page.close();
  });

  it('an expired token (ttl 1 s) is UploadTokenExpiredError in the page', async () => {
    const token = await mint({ ttlSeconds: 1 });
    const page = await openPage(pages.A.origin);
    // Until the expiry the server gave (its clock is this machine's), and no longer: a token expires when the
    // server's clock reaches `expires_at`, and the page asks after this.
    await eventually(() => Date.now() > Date.parse(token.expires_at), 10_000, 20);
    const [late] = await runInPage(page, {
      baseUrl: server.url,
      token: token.token,
      colour: colour(),
      steps: ['inspect'],
    });
    expect(late).toMatchObject({
      ok: false,
      name: 'UploadTokenExpiredError',
      code: 'UPLOAD_TOKEN_EXPIRED',
      status: 401,
    });
    await page.close();
  });

  it('origin B (not listed) gets no CORS: fetch rejects, NetworkError; listed origin C with A’s token is UploadTokenOriginError; neither takes a use', async () => {
    const token = await mint({ uses: 1 });
    const pageB = await openPage(pages.B.origin);
    const [fromB] = await runInPage(pageB, {
      baseUrl: server.url,
      token: token.token,
      colour: colour(),
      steps: ['inspect'],
    });
    expect(fromB).toMatchObject({ ok: false, name: 'NetworkError', code: 'NETWORK_ERROR' });
    expect((fromB as { status?: number }).status).toBeUndefined();
    const pageC = await openPage(pages.C.origin);
    const [fromC] = await runInPage(pageC, {
      baseUrl: server.url,
      token: token.token,
      colour: colour(),
      steps: ['inspect'],
    });
    expect(fromC).toMatchObject({
      ok: false,
      name: 'UploadTokenOriginError',
      code: 'UPLOAD_TOKEN_ORIGIN',
      status: 403,
      details: { origin: pages.A.origin },
    });
    // The one use is still there: origin A inspects with it.
    const pageA = await openPage(pages.A.origin);
    const [fromA] = await runInPage(pageA, {
      baseUrl: server.url,
      token: token.token,
      colour: colour(),
      steps: ['inspect'],
    });
    expect(fromA).toMatchObject({ ok: true, value: { signable: true } });
    for (const page of [pageA, pageB, pageC]) await page.close();
  });

  it('the sign token never reached the browser; every upload carried a minted token; no token is in the logs', () => {
    const uploads = requests.filter(
      (request) => request.url.startsWith(`${server.url}/api/`) && request.headers.authorization,
    );
    expect(uploads.length).toBeGreaterThanOrEqual(5);
    for (const request of uploads) {
      expect(minted.map((token) => `Bearer ${token}`)).toContain(request.headers.authorization);
    }
    expect(requests.length).toBeGreaterThan(uploads.length);
    for (const request of requests) expect(JSON.stringify(request)).not.toContain(server.token);
    for (const token of minted) expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain('sut_');
  });
});

describe('upload tokens from Node, against the real server', () => {
  it('20 parallel uploads with a 5-use token: exactly 5 are admitted, 15 are UPLOAD_TOKEN_USED_UP', async () => {
    const { token } = await mint({ uses: 5 });
    const plain = await sharp({ create: { width: 5, height: 5, channels: 3, background: colour() } })
      .png()
      .toBuffer();
    const png = await embedAuthor(plain, { author: 'Ana Lima' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const form = new FormData();
        form.append('file', new Blob([png as Uint8Array<ArrayBuffer>]), 'p.png');
        const response = await fetch(`${server.url}/api/inspect`, {
          method: 'POST',
          body: form,
          headers: { Authorization: `Bearer ${token}`, Origin: pages.A.origin },
        });
        return `${response.status} ${((await response.json()) as { error?: string }).error ?? 'ok'}`;
      }),
    );
    expect(answers.filter((answer) => answer === '200 ok')).toHaveLength(5);
    expect(answers.filter((answer) => answer === '401 UPLOAD_TOKEN_USED_UP')).toHaveLength(15);
  });

  it('an upload token cannot mint (401); an origin not in SIGN_CORS_ORIGINS is refused (422)', async () => {
    const { token } = await mint({ uses: 100 });
    const withUploadToken = mintUploadToken({ baseUrl: server.url, token, origin: pages.A.origin });
    await expect(withUploadToken).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(withUploadToken).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const unlisted = mintUploadToken({ baseUrl: server.url, token: server.token, origin: pages.B.origin });
    await expect(unlisted).rejects.toBeInstanceOf(OriginNotAllowedError);
    await expect(unlisted).rejects.toMatchObject({
      status: 422,
      code: 'ORIGIN_NOT_ALLOWED',
      details: { origin: pages.B.origin },
    });
  });

  it('without SIGN_CORS_ORIGINS the server answers no CORS header, preflight or not, and mints nothing', async () => {
    const plainServer = await startServer({ bunker });
    try {
      const responses = [
        await fetch(`${plainServer.url}/api/inspect`, {
          method: 'OPTIONS',
          headers: {
            Origin: pages.A.origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization',
          },
        }),
        await fetch(`${plainServer.url}/api/sign-image-v2`, {
          method: 'POST',
          headers: { Origin: pages.A.origin },
        }),
        await fetch(`${plainServer.url}/api/upload-tokens`, {
          method: 'POST',
          headers: { Origin: pages.A.origin, Authorization: `Bearer ${plainServer.token}` },
          body: JSON.stringify({ origin: pages.A.origin }),
        }),
      ];
      expect(responses.map((response) => response.status)).toEqual([404, 401, 422]);
      for (const response of responses) {
        const names: string[] = [];
        response.headers.forEach((_value, name) => {
          names.push(name);
        });
        expect(names.filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
    } finally {
      await plainServer.stop();
      await rm(plainServer.dataDir, { recursive: true, force: true });
    }
  });
});
