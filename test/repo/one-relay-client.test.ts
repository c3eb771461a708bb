// Issue 24, acceptance 1: one relay client. Core, the server and the bunker reach relays through nostr-tools
// only, on `ws` with a message cap made in one module (packages/core/src/nostr/relay-socket.ts; the bunker
// through `@siegel/core/relay`, issue 40); nothing else opens a WebSocket, imports `ws`, or hands
// nostr-tools the global (uncapped) WebSocket. The browser verify
// script reaches relays on the browser's WebSocket through relay-query-portable.ts, and `ws` never enters
// its bundle.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['packages/core/src', 'server/src', 'packages/bunker/src'];
const HOME = 'packages/core/src/nostr/relay-socket.ts';

/** A WebSocket client of our own, `ws` itself, or nostr-tools on the uncapped global WebSocket. */
const RELAY_CLIENT =
  /\bnew\s+(?:globalThis\.)?WebSocket\s*\(|\bfrom\s+['"]ws['"]|\brequire\(\s*['"]ws['"]\s*\)|\bimport\(\s*['"]ws['"]\s*\)|\bwebsocketImplementation\s*:\s*(?:globalThis\.)?WebSocket\b/;

/**
 * Who may import the lookups that fall back to the global WebSocket: the Node wrapper and the browser script.
 * A type-only import (`import type { RelayAnswer } …`) is erased when compiled: it reaches no WebSocket.
 */
const PORTABLE_IMPORT = /^import\s+(?!type\b)[^;]*?from\s+'[./]*(?:nostr\/)?relay-query-portable\.js'/m;
const PORTABLE_USERS = /^packages\/core\/src\/(?:nostr\/relay-query\.ts|verify\/script\/[^/]+\.ts)$/;

async function listSources(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(?:ts|mts|js|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

describe('one relay client (issue 24)', async () => {
  const sources = new Map<string, string>();
  for (const dir of SCANNED)
    for (const file of await listSources(dir)) sources.set(file, await readFile(join(ROOT, file), 'utf8'));

  it('only relay-socket.ts makes WebSockets (ws, capped); no other relay client in core, the server or the bunker', () => {
    expect(RELAY_CLIENT.test(sources.get(HOME) ?? ''), `${HOME} imports ws`).toBe(true);
    const elsewhere = [...sources]
      .filter(([path, text]) => path !== HOME && RELAY_CLIENT.test(text))
      .map(([path, text]) => `${path}: ${text.match(RELAY_CLIENT)?.[0]}`);
    expect(elsewhere).toEqual([]);
  });

  it('the lookups on the global WebSocket are imported only by their Node wrapper and the browser script', () => {
    const users = [...sources].filter(([, text]) => PORTABLE_IMPORT.test(text)).map(([path]) => path);
    expect(users).toContain('packages/core/src/nostr/relay-query.ts');
    expect(users.filter((path) => !PORTABLE_USERS.test(path))).toEqual([]);
  });

  it('scans core, the server and the bunker, and would catch a second client', () => {
    for (const expected of [
      'packages/core/src/nostr/relay-publisher.ts',
      'packages/core/src/signer/nip46-signer.ts',
      'server/src/publishing/send-to-relays.ts',
      'packages/bunker/src/nip46/relay-pool.ts',
    ])
      expect([...sources.keys()]).toContain(expected);
    for (const copy of [
      'const socket = new WebSocket(url);',
      "import WebSocket from 'ws';",
      "import { WebSocket } from 'ws';",
      'new AbstractSimplePool({ websocketImplementation: WebSocket, verifyEvent })',
    ])
      expect(RELAY_CLIENT.test(copy), copy).toBe(true);
    expect(PORTABLE_IMPORT.test("import { queryRelay } from '../nostr/relay-query-portable.js';")).toBe(true);
  });

  it('the browser verify script bundles no `ws` (built by `npm run build`)', async () => {
    const bundle = await readFile(join(ROOT, 'packages/core/dist/siegel-verify.js'), 'utf8');
    // nostr-tools' relay is in it (the lookups run on it) …
    expect(bundle).toContain('relay connection closed');
    // … `ws` (or its browser stub) is not.
    expect(bundle).not.toMatch(/maxPayload|ws does not work in the browser|WS_ERR_/);
  });
});
