// Issue 37, shipping: the build `npm run build -w @siegel/extension` writes is what the stores take —
// `web-ext lint` (addons.mozilla.org's linter) reports no error on it, and its zip, unpacked as a reviewer
// would (Info-ZIP's unzip), holds exactly the unpacked build, loads in Chromium and installs in Firefox ESR
// over WebDriver BiDi, reading VALID on a signed page in both.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXTENSION_DIR, launchWithExtension } from '../support/extension.ts';
import { launchFirefoxWithExtension } from '../support/extension-firefox.ts';
import { type RunningRelay, startRelay } from '../support/relay-process.ts';
import { type StaticServer, serveDirectory } from '../support/static-server.ts';
import { buildCaseSite } from '../support/verdict-cases.ts';

// Timeouts (docs/testing.md): web-ext lint takes about 10 s here, each browser 5–10 s to start.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('../../packages/extension/', import.meta.url));

let root: string;
let unpacked: string;
let zip: string;
let site: StaticServer;
let relay: RunningRelay;

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-extension-package-'));
  const { version } = JSON.parse(await readFile(join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
  zip = join(PACKAGE_DIR, 'dist', `siegel-extension-${version}.zip`);
  unpacked = join(root, 'from-zip');
  await run('unzip', ['-q', zip, '-d', unpacked]);
  relay = await startRelay();
  const siteDir = join(root, 'site');
  await mkdir(siteDir);
  site = await serveDirectory(siteDir);
  await buildCaseSite(siteDir, site.url, relay.url);
});

afterAll(async () => {
  await relay?.stop();
  await site?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the extension as shipped', () => {
  it('web-ext lint: no errors on the unpacked build', async () => {
    const { stdout } = await run(
      process.execPath,
      [join(PACKAGE_DIR, 'scripts/package-lint.mjs'), EXTENSION_DIR],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const report = JSON.parse(stdout);
    expect(report.errors).toEqual([]);
    expect(report.summary.errors).toBe(0);
    expect(report.metadata.manifestVersion).toBe(3);
  });

  it('the zip holds exactly the unpacked build, the manifest at its root', async () => {
    expect(await filesUnder(unpacked)).toEqual(await filesUnder(EXTENSION_DIR));
    expect(await readFile(join(unpacked, 'manifest.json'), 'utf8')).toBe(
      await readFile(join(EXTENSION_DIR, 'manifest.json'), 'utf8'),
    );
  });

  it('the zip, unpacked, loads in Chromium: VALID on a signed page', async () => {
    const browser = await launchWithExtension(unpacked);
    try {
      await browser.setRelays([relay.url]);
      const page = await browser.context.newPage();
      await page.goto(`${site.url}valid.html`);
      expect(await browser.stateOf(page)).toMatch(/^VALID /);
    } finally {
      await browser.close();
    }
  });

  it('the zip installs in Firefox ESR over BiDi: VALID on a signed page', async () => {
    const firefox = await launchFirefoxWithExtension(zip, unpacked);
    try {
      await firefox.setRelays([relay.url]);
      expect(await firefox.stateAt(`${site.url}valid.html`)).toMatch(/^VALID /);
    } finally {
      await firefox.close();
    }
  });
});
