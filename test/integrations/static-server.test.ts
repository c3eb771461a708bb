// The test suites' static host (test/support/static-server.ts) answers like a real one, bad URLs included.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

let root: string;
let server: StaticServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-static-'));
  await writeFile(join(root, 'index.html'), '<main>home</main>');
  server = await serveDirectory(root, { base: '/docs' });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

describe('serveDirectory', () => {
  it('serves index.html under base, 404 outside it', async () => {
    const home = await fetch(server.url);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe('<main>home</main>');
    expect((await fetch(new URL('/elsewhere/', server.url))).status).toBe(404);
  });

  it('answers a malformed percent-escape with 400 and keeps serving (regression: it threw in the handler)', async () => {
    const malformed = await fetch(new URL('/docs/%E0%A4%A', server.url));
    expect(malformed.status).toBe(400);
    const home = await fetch(server.url);
    expect(home.status).toBe(200);
  });

  it('with cleanUrls serves `/p` from `p.html`, as hosts of VitePress’s cleanUrls do; without it, 404', async () => {
    await mkdir(join(root, 'guide'), { recursive: true });
    await writeFile(join(root, 'about.html'), '<main>about</main>');
    await writeFile(join(root, 'guide/start.html'), '<main>start</main>');
    const clean = await serveDirectory(root, { cleanUrls: true });
    try {
      const cases: Array<[string, string]> = [
        ['about', 'about'],
        ['about.html', 'about'],
        ['guide/start', 'start'],
        ['', 'home'],
      ];
      for (const [path, body] of cases) {
        const response = await fetch(new URL(path, clean.url));
        expect([path, response.status, await response.text()]).toEqual([path, 200, `<main>${body}</main>`]);
      }
      expect((await fetch(new URL('about/', clean.url))).status).toBe(404);
      expect((await fetch(new URL('missing', clean.url))).status).toBe(404);
    } finally {
      await clean.close();
    }
    expect((await fetch(new URL('/docs/about', server.url))).status).toBe(404);
  });
});
