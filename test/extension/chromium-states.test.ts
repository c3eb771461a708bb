// Issue 37: the browser extension in Debian's Chromium, unpacked, judging signed pages where they are read —
// the rule book's half. The verdict case site (verdict-cases.ts, signed by `signSite`) on a loopback static
// server, the reader's relays set to a relay process (through a tap that records what is asked): every case
// reads the tab's state from the action's title (`chrome.action.getTitle({ tabId })`).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, LocalKeySigner, signSite } from '@siegel/core';
import { npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type ExtensionBrowser, launchWithExtension, type RelayTap, tapRelay } from '../support/extension.ts';
import { freePort } from '../support/free-port.ts';
import { type RunningRelay, sendEvent, startRelay } from '../support/relay-process.ts';
import { signTestSite } from '../support/sign-test-site.ts';
import { type StaticServer, serveDirectory } from '../support/static-server.ts';
import { buildCaseSite, pageHtml, VERDICT_CASES } from '../support/verdict-cases.ts';

// Timeouts (docs/testing.md): each page's check takes about a second here; the verdict cases, one tab
// after another, take 20 s; a relay that cannot be reached costs its 2 s connect time.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

/** The key of the pages signed by someone new on the case site's origin, and of the rolled-back site. */
const NEW_KEY = '6'.repeat(64);
const ROLLBACK_KEY = '7'.repeat(64);
const quiet = { info: () => {}, warn: () => {} };

let root: string;
let cases: StaticServer;
let rollback: StaticServer;
let plain: StaticServer;
let relay: RunningRelay;
let tap: RelayTap;
let dead: string;
let browser: ExtensionBrowser;

/** Sign `dir` for `site` with `key`, publishing to the relay (the site manifest too). */
const signPublished = (dir: string, site: string, key: string) =>
  signSite(dir, {
    site,
    signer: new LocalKeySigner(key),
    relays: [relay.url],
    cacheFile: join(root, `${key.slice(0, 4)}.sign-cache.json`),
    logger: quiet,
    progress: false,
    parseWorkers: 0,
  });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-extension-states-'));
  relay = await startRelay();
  tap = await tapRelay(relay.url);
  // A relay address nothing listens on: the blocks' hints, and the reader's relays in the outage case.
  dead = `ws://127.0.0.1:${await freePort()}`;
  const casesDir = join(root, 'cases');
  await mkdir(casesDir, { recursive: true });
  cases = await serveDirectory(casesDir);
  await buildCaseSite(casesDir, cases.url, dead);
  // A page of the same origin signed by another key (a new author): `newcomer/`.
  await mkdir(join(casesDir, 'newcomer'), { recursive: true });
  await writeFile(join(casesDir, 'newcomer', 'index.html'), pageHtml('Newcomer', 'A guest post.'));
  await signTestSite(join(casesDir, 'newcomer'), `${cases.url}newcomer/`, NEW_KEY, join(root, 'new.json'));
  // NIP-05 names on the case site's own domain (a loopback host: fetched over http).
  await mkdir(join(casesDir, '.well-known'), { recursive: true });
  await writeFile(
    join(casesDir, '.well-known', 'nostr.json'),
    JSON.stringify({
      names: {
        _: getPublicKey(Buffer.from('3'.repeat(64), 'hex')),
        guest: getPublicKey(Buffer.from(NEW_KEY, 'hex')),
      },
    }),
  );
  // The rolled-back site: v1, v2 with news.html corrected (published), v1's news.html put back.
  const rollbackDir = join(root, 'rollback');
  await mkdir(rollbackDir, { recursive: true });
  rollback = await serveDirectory(rollbackDir);
  await writeFile(join(rollbackDir, 'news.html'), pageHtml('News', 'Version one.'));
  await signPublished(rollbackDir, rollback.url, ROLLBACK_KEY);
  const v1 = await readFile(join(rollbackDir, 'news.html'), 'utf8');
  const v1Event = analyzePage(v1).signatureBlock?.eventId as string;
  await cp(join(rollbackDir, 'verify'), join(root, 'v1-verify'), { recursive: true });
  await writeFile(join(rollbackDir, 'news.html'), v1.replace('Version one.', 'Version two.'));
  await signPublished(rollbackDir, rollback.url, ROLLBACK_KEY);
  await cp(join(root, 'v1-verify', `${v1Event}.json`), join(rollbackDir, 'verify', `${v1Event}.json`));
  await writeFile(join(rollbackDir, 'news.html'), v1);
  // A page without a block, on a server of its own.
  const plainDir = join(root, 'plain');
  await mkdir(plainDir, { recursive: true });
  await writeFile(join(plainDir, 'plain.html'), pageHtml('Plain', 'No signature here.'));
  plain = await serveDirectory(plainDir);
  browser = await launchWithExtension();
  await browser.setRelays([tap.url]);
});

afterAll(async () => {
  await browser?.close();
  await tap?.close();
  await relay?.stop();
  await Promise.all([cases?.close(), rollback?.close(), plain?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

/** Open `url` in a new tab and read its final state's title. */
async function stateAt(url: string): Promise<string> {
  const page = await browser.context.newPage();
  try {
    await page.goto(url);
    return await browser.stateOf(page);
  } finally {
    await page.close();
  }
}

const WORD = { valid: 'VALID', invalid: 'INVALID', not_found: 'UNVERIFIED' } as const;

describe('the rule book’s verdict in the reader’s tab', () => {
  it('reads every verdict case as every verifier does (valid, edited <main>, not the block’s signer, another address, …)', async () => {
    // valid.html comes first: its key becomes the origin's known signer (trust on first use).
    expect(VERDICT_CASES[0]?.page).toBe('valid.html');
    for (const c of VERDICT_CASES) {
      const title = await stateAt(`${cases.url}${c.page}`);
      expect(title, c.page).toMatch(new RegExp(`^${WORD[c.verdict]} `));
      if (c.verdict !== 'valid')
        for (const code of c.codes.filter((code) => !code.startsWith('manifest.')))
          expect(title, c.page).toContain(code);
    }
  });

  it('reads UNVERIFIED, not INVALID, when the event is missing and the relays are down', async () => {
    await browser.setRelays([dead]);
    try {
      const title = await stateAt(`${cases.url}missing.html`);
      expect(title).toMatch(/^UNVERIFIED /);
      expect(title).toContain('event.not_found');
    } finally {
      await browser.setRelays([tap.url]);
    }
  });

  it('reads INVALID on a rolled-back page (page.superseded, from the reader’s relays)', async () => {
    const title = await stateAt(`${rollback.url}news.html`);
    expect(title).toMatch(/^INVALID /);
    expect(title).toContain('page.superseded');
  });
});

describe('trust on first use and pins', () => {
  it('reads NEW SIGNER for a new key on a known origin until the reader accepts it in the popup', async () => {
    // The origin's first key (accepted by itself), whatever ran before.
    expect(await stateAt(`${cases.url}valid.html`)).toMatch(/^VALID /);
    const page = await browser.context.newPage();
    await page.goto(`${cases.url}newcomer/`);
    const title = await browser.stateOf(page);
    expect(title).toMatch(/^NEW SIGNER /);
    expect(title).toContain('signer.new');
    const tabId = await browser.tabIdOf(page);
    const popup = await browser.context.newPage();
    await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${tabId}`);
    await popup.waitForSelector('body[data-ready="true"]');
    expect(await popup.textContent('#problems')).toContain('signer.new');
    expect(await popup.textContent('#signer-npub')).toBe(
      npubEncode(getPublicKey(Buffer.from(NEW_KEY, 'hex'))),
    );
    await popup.click('#accept');
    expect(await browser.stateOf(page, { not: 'NEW SIGNER' })).toMatch(/^VALID /);
    await popup.close();
    await page.close();
  });

  it('accepts only one first key when two tabs of a new origin, signed by two keys, are checked at once', async () => {
    // The case site again on another port: an origin the reader has never seen.
    const twin = await serveDirectory(join(root, 'cases'));
    try {
      const [first, second] = await Promise.all([browser.context.newPage(), browser.context.newPage()]);
      // Both pages name the case site's address: each reads as the case site's page at another address,
      // and trust is decided per origin either way. Loaded at once, both checks find the origin new.
      await Promise.all([first.goto(`${twin.url}valid.html`), second.goto(`${twin.url}newcomer/`)]);
      const titles = await Promise.all([browser.stateOf(first), browser.stateOf(second)]);
      const known = await browser.worker.evaluate(
        async (origin) =>
          ((await chrome.storage.local.get('known')).known as Record<string, unknown[]>)[origin],
        new URL(twin.url).origin,
      );
      expect(known).toHaveLength(1);
      expect(titles.filter((title) => title.includes('signer.new'))).toHaveLength(1);
      await Promise.all([first.close(), second.close()]);
    } finally {
      await twin.close();
    }
  });

  it('reads INVALID (signer.unexpected) for a key other than the one pinned in the options page', async () => {
    const options = await browser.context.newPage();
    await options.goto(`chrome-extension://${browser.id}/options.html`);
    await options.fill('#pin-origin', cases.url);
    await options.fill('#pin-signer', npubEncode(getPublicKey(Buffer.from(NEW_KEY, 'hex'))));
    await options.click('#add-pin');
    await options.waitForSelector('#pins tr');
    const title = await stateAt(`${cases.url}valid.html`);
    expect(title).toMatch(/^INVALID /);
    expect(title).toContain('signer.unexpected');
    await options.click('#pins button');
    await options.waitForSelector('#pins tr', { state: 'detached' });
    expect(await stateAt(`${cases.url}valid.html`)).toMatch(/^VALID /);
    await options.close();
  });
});

describe('pins by NIP-05 name', () => {
  const pinAndRead = async (name: string) => {
    const origin = new URL(cases.url).origin;
    await browser.worker.evaluate(({ site, pin }) => chrome.storage.local.set({ pins: { [site]: pin } }), {
      site: origin,
      pin: name,
    });
    try {
      return await stateAt(`${cases.url}valid.html`);
    } finally {
      await browser.worker.evaluate(() => chrome.storage.local.set({ pins: {} }));
    }
  };
  const domain = () => new URL(cases.url).host;

  it('reads VALID for the key the pinned name resolves to, INVALID for another name’s key', async () => {
    expect(await pinAndRead(`_@${domain()}`)).toMatch(/^VALID /);
    const other = await pinAndRead(`guest@${domain()}`);
    expect(other).toMatch(/^INVALID /);
    expect(other).toContain('signer.unexpected');
  });

  it('reads UNVERIFIED (signer.unresolved) when the pinned name’s domain names no key', async () => {
    const title = await pinAndRead(`nobody@${domain()}`);
    expect(title).toMatch(/^UNVERIFIED /);
    expect(title).toContain('signer.unresolved');
  });
});

describe('the popup', () => {
  it('names the signer’s NIP-05, confirmed by its domain, with the event’s URL, title and the coverage sentence', async () => {
    const domain = new URL(cases.url).host;
    const profile = finalizeEvent(
      {
        kind: 0,
        created_at: Math.floor(Date.now() / 1000),
        tags: [],
        content: JSON.stringify({ nip05: `_@${domain}` }),
      },
      Buffer.from('3'.repeat(64), 'hex'),
    );
    await sendEvent(relay.url, profile);
    const page = await browser.context.newPage();
    await page.goto(`${cases.url}valid.html`);
    expect(await browser.stateOf(page)).toMatch(/^VALID /);
    const tabId = await browser.tabIdOf(page);
    const popup = await browser.context.newPage();
    // The name is looked up after the state is shown: the popup is opened again until it has it.
    await eventually(async () => {
      await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${tabId}`);
      await popup.waitForSelector('body[data-ready="true"]');
      return (await popup.textContent('#signer-nip05'))?.includes('confirmed by its domain') === true;
    }, 15_000);
    expect(await popup.textContent('#signer-nip05')).toContain(`_@${domain}`);
    expect(await popup.textContent('#signed-url')).toBe(`${cases.url}valid.html`);
    expect(await popup.textContent('#signed-title')).toBe('valid.html');
    expect(await popup.textContent('#coverage')).toContain('A valid signature covers the markup of `main`');
    expect(await popup.textContent('#content')).toContain('<h1>valid.html</h1>');
    await Promise.all([popup.close(), page.close()]);
  });
});

describe('manners', () => {
  it('makes no request for a page without a block', async () => {
    const before = tap.messages.length;
    const quietTab = await browser.context.newPage();
    await quietTab.goto(`${plain.url}plain.html`);
    // Then a signed page: once its verdict is shown, the worker has handled every message sent before it.
    const signed = await browser.context.newPage();
    await signed.goto(`${cases.url}valid.html`);
    expect(await browser.stateOf(signed)).toMatch(/^VALID /);
    // The plain server saw only the tab's own navigation (and Chromium's favicon request).
    expect(plain.requests.filter((path) => path !== '/favicon.ico')).toEqual(['/plain.html']);
    // Every relay message since then is the signed page's (its site manifest: its key), none without it.
    const caseKey = getPublicKey(Buffer.from('3'.repeat(64), 'hex'));
    const asked = tap.messages.slice(before).filter((message) => message.startsWith('["REQ"'));
    expect(asked.length).toBeGreaterThan(0);
    for (const message of asked) expect(message).toContain(caseKey);
    expect(await browser.titleOf(quietTab)).not.toMatch(
      /^(VALID|INVALID|CHANGED|NEW SIGNER|UNVERIFIED|CHECKING) /,
    );
    await Promise.all([quietTab.close(), signed.close()]);
  });
});
