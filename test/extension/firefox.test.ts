// Issue 37: the same extension build in Debian's Firefox ESR — installed over WebDriver BiDi
// (`webExtension.install`), its state read from its own page in a tab — judges the verdict case site on a
// loopback static server with a relay process as the reader's relay: VALID on the valid page, INVALID on the
// page whose <main> was edited after signing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FirefoxExtension, launchFirefoxWithExtension } from '../support/extension-firefox.ts';
import { type RunningRelay, startRelay } from '../support/relay-process.ts';
import { type StaticServer, serveDirectory } from '../support/static-server.ts';
import { buildCaseSite } from '../support/verdict-cases.ts';

// Timeouts (docs/testing.md): Firefox starts in about 5 s here; each page's check takes a second or two.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let root: string;
let site: StaticServer;
let relay: RunningRelay;
let firefox: FirefoxExtension;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-extension-firefox-'));
  relay = await startRelay();
  site = await serveDirectory(root);
  await buildCaseSite(root, site.url, relay.url);
  firefox = await launchFirefoxWithExtension();
  await firefox.setRelays([relay.url]);
});

afterAll(async () => {
  await firefox?.close();
  await relay?.stop();
  await site?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the extension in Firefox ESR', () => {
  it('reads VALID on the valid page', async () => {
    expect(await firefox.stateAt(`${site.url}valid.html`)).toMatch(/^VALID /);
  });

  it('reads INVALID on the page whose <main> was edited', async () => {
    expect(await firefox.stateAt(`${site.url}edited.html`)).toMatch(/^INVALID /);
  });
});
