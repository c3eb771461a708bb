// Issue 22, L2: strings from elsewhere — a relay's refusal, a bunker's error message — reached the terminal
// raw: an ESC sequence clears the screen or fakes a prompt, a newline fakes a line of our own. Every CLI
// now prints them with every control character as a visible `\uXXXX`: `siegel` (a relay's refusal, an HTTP
// bunker's error) and `siegel-server` (a relay's refusal in its delivery log). Real processes throughout.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signOverHttp, startServer } from '../server/server-process.js';
import { runSiegel } from '../site/support.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { eventually } from '../support/eventually.js';
import { type RunningRelay, startRelay } from '../support/relay-process.js';

/** What a hostile peer says: clear the screen, home the cursor, a fake line, a bidi override. */
const HOSTILE = '\u001b[2J\u001b[Hall good\nBUNKER_API_TOKEN=stolen \u202eevil';

let relay: RunningRelay;
let bunker: RunningBunker;
let hostileBunker: Server;
let work: string;

beforeAll(async () => {
  [relay, bunker] = await Promise.all([startRelay({ refuse: HOSTILE }), useBunker()]);
  work = await mkdtemp(join(tmpdir(), 'siegel-terminal-'));
  // An HTTP "bunker" whose every answer is a 500 with the hostile words as its message.
  hostileBunker = createServer((_request, response) => {
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { code: HOSTILE, message: HOSTILE } }));
  });
  await new Promise<void>((resolve) => hostileBunker.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => hostileBunker?.close(resolve));
  await Promise.all([relay?.stop(), bunker?.stop()]);
  if (work) await rm(work, { recursive: true, force: true });
});

// The characters a terminal acts on (C0 but tab and newline, DEL, C1, bidi controls).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** No character a terminal would act on, but newlines of our own. */
function expectTerminalSafe(output: string): void {
  expect(output).not.toMatch(UNSAFE);
  expect(output).not.toContain('\nBUNKER_API_TOKEN=stolen');
}

async function site(name: string): Promise<string> {
  const project = join(work, name);
  await mkdir(join(project, 'dist'), { recursive: true });
  await writeFile(
    join(project, 'dist', 'index.html'),
    '<!doctype html><title>T</title><main><p>Hi</p></main>',
  );
  return project;
}

describe('remote words reach no terminal raw', () => {
  it('siegel sign: a relay’s refusal is printed escaped', async () => {
    const project = await site('relay');
    const run = await runSiegel(['sign', 'dist', '--relay', relay.url], {
      cwd: project,
      env: { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: 'https://example.com' },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const output = run.stdout + run.stderr;
    expect(output).toContain(
      'refused: blocked: \\u001b[2J\\u001b[Hall good\\u000aBUNKER_API_TOKEN=stolen \\u202eevil',
    );
    expectTerminalSafe(output);
  });

  it('siegel sign: an HTTP bunker’s error message is printed escaped', async () => {
    const project = await site('bunker');
    const run = await runSiegel(['sign', 'dist'], {
      cwd: project,
      env: {
        BUNKER_URL: `http://127.0.0.1:${(hostileBunker.address() as AddressInfo).port}`,
        BUNKER_API_TOKEN: 'token-for-a-hostile-bunker',
        SITE_URL: 'https://example.com',
        SIEGEL_BATCH_SIZE: '1',
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('\\u001b[2J');
    expectTerminalSafe(run.stdout + run.stderr);
  });

  it('siegel-server: a relay’s refusal in the delivery log is escaped', async () => {
    const server = await startServer({ bunker, env: { SIEGEL_RELAYS: relay.url, RELAY_RETRY_MS: '60000' } });
    try {
      const markdown = new TextEncoder().encode('---\nauthor: Jane Writer\ntitle: Safe\n---\n# Safe\n');
      const signed = await signOverHttp(server, 'safe.md', markdown);
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      await eventually(() => server.output().includes('refused'), 10_000, 100);
      expect(server.output()).toContain('\\u001b[2J');
      expectTerminalSafe(server.output());
    } finally {
      await server.stop();
    }
  });
});
