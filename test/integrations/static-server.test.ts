// The test suites' static host (test/support/static-server.ts) answers like a real one, bad URLs included.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
});
