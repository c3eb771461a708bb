// Issue 36, acceptance 1 and 2 (the verifying half): a site signed twice with a relay (v1, then v2 with one
// page changed and one deleted), v1's bytes put back, and what `siegel verify <url>`, `siegel verify <dir>
// --site` and the verify page in Chromium say — currency from the verifier's relays (page.superseded,
// page.withdrawn, manifest.unchecked) and the assets the manifest pins (asset.changed, asset.unlisted).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  analyzePage,
  applySignatureBlock,
  LocalKeySigner,
  type NostrEvent,
  renderSignatureBlock,
  signSite,
} from '@siegel/core';
import { finalizeEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { readVerdict } from '../support/read-verdict.js';
import { type RunningRelay, sendEvent, startRelay } from '../support/relay-process.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { pageHtml } from '../support/verdict-cases.js';

// Timeouts (docs/testing.md): two signing runs with a relay, then ten CLI runs and a Chromium page: 25 s
// alone on the 2-core machine, 48 s for the first test (three verifiers) at a load average of 27.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const KEY = '5'.repeat(64);
const quiet = { info: () => {}, warn: () => {} };

interface JsonReport {
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string; message: string }> }>;
}

let root: string;
let dir: string;
let server: StaticServer;
let relay: RunningRelay;
let v1Only: RunningRelay;
/** A relay that holds only the key's NIP-65 relay list (kind 10002), naming `relay`. */
let listOnly: RunningRelay;
let chromium: LaunchedChromium;
/** v1's files kept aside: `news.html`, `old.html` and their verify files, and v1's manifest event. */
let v1: { news: string; old: string; newsEvent: NostrEvent; oldEvent: NostrEvent; manifest: string };

/** A plain signed-site page (verdict-cases.ts) with `head` added to its `<head>`, linking the others. */
const sitePage = (title: string, body: string, head = '') =>
  pageHtml(
    title,
    body,
    '<a href="news.html">news</a> <a href="about.html">about</a> <a href="old.html">old</a>',
  ).replace('</head>', `${head}</head>`);

const sign = () =>
  signSite(dir, {
    site: server.url,
    signer: new LocalKeySigner(KEY),
    relays: [relay.url],
    cacheFile: join(root, 'sign-cache.json'),
    logger: quiet,
    progress: false,
    parseWorkers: 0,
  });

const read = (path: string) => readFile(join(dir, path), 'utf8');
const eventOf = async (path: string): Promise<NostrEvent> => {
  const id = analyzePage(await read(path)).signatureBlock?.eventId as string;
  return JSON.parse(await read(`verify/${id}.json`)) as NostrEvent;
};

/** verdict and codes of `page` (a URL or a path) in a `--json` report, and its problems' messages. */
async function verify(args: string[], page: string) {
  const result = await runCli(['verify', ...args, '--json'], root);
  const report = JSON.parse(result.stdout) as JsonReport;
  const found = report.pages.find((p) => p.page === page);
  if (!found) throw new Error(`${page} not judged:\n${result.stdout}\n${result.stderr}`);
  return {
    codes: [found.verdict, ...found.problems.map((problem) => problem.code)],
    text: found.problems.map((problem) => problem.message).join('\n'),
  };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-manifest-verify-'));
  dir = join(root, 'site');
  await mkdir(dir, { recursive: true });
  server = await serveDirectory(dir);
  [relay, v1Only, listOnly] = await Promise.all([startRelay(), startRelay(), startRelay()]);
  chromium = await launchChromium();
  await writeFile(
    join(dir, 'index.html'),
    sitePage('Home', 'The home page.', '<script src="app.js"></script>\n'),
  );
  await writeFile(join(dir, 'app.js'), 'document.documentElement.dataset.app = "1";\n');
  await writeFile(
    join(dir, 'news.html'),
    sitePage('News', 'Version one.', '<script src="app.js"></script>\n'),
  );
  await writeFile(join(dir, 'about.html'), sitePage('About', 'About us.'));
  await writeFile(join(dir, 'old.html'), sitePage('Old', 'A page deleted in v2.'));
  await sign();
  const kept = join(root, 'v1');
  await cp(dir, kept, { recursive: true });
  v1 = {
    news: await read('news.html'),
    old: await read('old.html'),
    newsEvent: await eventOf('news.html'),
    oldEvent: await eventOf('old.html'),
    manifest: await read('verify/manifest.json'),
  };
  // v2: one page changed (a correction), one deleted. Signing removes v1's verify files of both.
  await writeFile(join(dir, 'news.html'), (await read('news.html')).replace('Version one.', 'Version two.'));
  await rm(join(dir, 'old.html'));
  await sign();
  // The rollback: v1's bytes of both pages put back, with their event files and verify pages.
  for (const event of [v1.newsEvent, v1.oldEvent]) {
    await cp(join(kept, 'verify', `${event.id}.json`), join(dir, 'verify', `${event.id}.json`));
    await cp(join(kept, 'verify', event.id), join(dir, 'verify', event.id), { recursive: true });
  }
  await writeFile(join(dir, 'news.html'), v1.news);
  await writeFile(join(dir, 'old.html'), v1.old);
  // A relay that holds only v1's manifest (for the hints edited below).
  await sendEvent(v1Only.url, JSON.parse(v1.manifest));
  // The key's relay list (NIP-65): it writes to `relay`, which holds v2's manifest.
  await sendEvent(
    listOnly.url,
    finalizeEvent(
      { kind: 10002, created_at: Math.floor(Date.now() / 1000), tags: [['r', relay.url]], content: '' },
      Buffer.from(KEY, 'hex'),
    ),
  );
});

afterAll(async () => {
  await chromium?.close();
  await Promise.all([relay?.stop(), v1Only?.stop(), listOnly?.stop()]);
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

describe('currency: the newest manifest from the verifier’s relays (acceptance 1)', () => {
  it('v1’s page put back is page.superseded in siegel verify <url>, <dir> --site and the verify page', async () => {
    const url = await verify([server.url, '--relay', relay.url], `${server.url}news.html`);
    expect(url.codes).toEqual(['invalid', 'page.superseded']);
    expect(url.text).toMatch(/signed on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const fromDir = await verify([dir, '--site', server.url, '--relay', relay.url], 'news.html');
    expect(fromDir.codes).toEqual(['invalid', 'page.superseded']);
    // The verify page asks the page's hints (the signing relay, which holds v2) besides its own list.
    const verdict = await readVerdict(await chromium.tab(), server.url, v1.newsEvent.id);
    expect(verdict.state, verdict.text).toBe('invalid');
    expect(verdict.codes).toContain('page.superseded');
  });

  it('a page deleted in v2 and put back is page.withdrawn', async () => {
    expect((await verify([server.url, '--relay', relay.url], `${server.url}old.html`)).codes).toEqual([
      'invalid',
      'page.withdrawn',
    ]);
    expect((await verify([dir, '--site', server.url, '--relay', relay.url], 'old.html')).codes).toEqual([
      'invalid',
      'page.withdrawn',
    ]);
  });

  it('hints edited to a relay with only v1’s manifest and v1’s manifest on the site: still superseded, also found through the key’s NIP-65 list', async () => {
    const v2Manifest = await read('verify/manifest.json');
    const html = await read('news.html');
    const block = renderSignatureBlock(v1.newsEvent, {
      verifyUrl: `${server.url}verify/${v1.newsEvent.id}`,
      relays: [v1Only.url],
    });
    await writeFile(join(dir, 'news.html'), applySignatureBlock(html, analyzePage(html), block));
    await writeFile(join(dir, 'verify/manifest.json'), v1.manifest);
    try {
      const page = `${server.url}news.html`;
      expect((await verify([server.url, '--relay', relay.url], page)).codes).toEqual([
        'invalid',
        'page.superseded',
      ]);
      // Currency from the key's NIP-65 relays: the verifier's one relay holds only the key's kind 10002,
      // which names the relay that holds v2's manifest.
      expect((await verify([server.url, '--relay', listOnly.url], page)).codes).toEqual([
        'invalid',
        'page.superseded',
      ]);
      // Without a relay of the verifier's, what the page names proves nothing: never a silent valid.
      const unchecked = await verify([server.url], page);
      // (and the edited block makes its bytes another than v1's manifest pins: a warning).
      expect(unchecked.codes).toEqual(['valid', 'manifest.unchecked', 'manifest.bytes_differ']);
      expect(unchecked.text).toContain('only relays the page names');
    } finally {
      await writeFile(join(dir, 'news.html'), v1.news);
      await writeFile(join(dir, 'verify/manifest.json'), v2Manifest);
    }
  });
});

describe('assets the manifest pins (acceptance 2)', () => {
  it('one byte of a JS file the page loads changed: asset.changed in URL mode, naming it', async () => {
    const app = await read('app.js');
    expect((await verify([server.url, '--relay', relay.url], server.url)).codes).toEqual(['valid']);
    await writeFile(join(dir, 'app.js'), app.replace('"1"', '"2"'));
    try {
      const home = await verify([server.url, '--relay', relay.url], server.url);
      expect(home.codes).toEqual(['invalid', 'asset.changed']);
      expect(home.text).toContain('/app.js');
      // A page that does not load it is not concerned.
      expect((await verify([server.url, '--relay', relay.url], `${server.url}about.html`)).codes).toEqual([
        'valid',
      ]);
    } finally {
      await writeFile(join(dir, 'app.js'), app);
    }
  });

  it('an inline script in <head> and another origin’s script added: asset.unlisted, each named', async () => {
    const about = await read('about.html');
    await writeFile(
      join(dir, 'about.html'),
      about.replace(
        '</head>',
        '<script>document.title = "x";</script>\n<script src="https://cdn.example/x.js"></script>\n</head>',
      ),
    );
    try {
      const result = await verify([server.url, '--relay', relay.url], `${server.url}about.html`);
      expect(result.codes).toEqual(['invalid', 'asset.unlisted', 'asset.unlisted']);
      expect(result.text).toContain('https://cdn.example/x.js');
      expect(result.text).toMatch(/script sha256-[A-Za-z0-9+/]+=*/);
    } finally {
      await writeFile(join(dir, 'about.html'), about);
    }
  });

  it('verify/siegel-verify.js replaced: siegel verify <url> reports it', async () => {
    const script = await read('verify/siegel-verify.js');
    await writeFile(
      join(dir, 'verify/siegel-verify.js'),
      'document.getElementById("siegel-status").dataset.state = "valid";\n',
    );
    try {
      const result = await verify([server.url, '--relay', relay.url], `${server.url}about.html`);
      expect(result.codes).toEqual(['invalid', 'asset.changed']);
      expect(result.text).toContain('/verify/siegel-verify.js');
    } finally {
      await writeFile(join(dir, 'verify/siegel-verify.js'), script);
    }
  });
});

describe('every relay down (acceptance 1)', () => {
  it('the page keeps its verdict, with manifest.unchecked saying why', async () => {
    await relay.stop();
    await v1Only.stop();
    const result = await verify([server.url, '--relay', relay.url], `${server.url}about.html`);
    expect(result.codes).toEqual(['valid', 'manifest.unchecked']);
    expect(result.text).toContain(relay.url);
    expect(result.text).toMatch(/cannot connect|closed/);
  });
});
