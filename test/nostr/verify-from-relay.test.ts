// Acceptance 5 of issue 13: a site signed with a relay configured (its blocks' `nevent` links name the
// relay), its events put on a real relay process, then every `verify/*.json` deleted — `siegel verify`
// still verifies every page, from the relay; with the relay down no page is valid and each says why.
// `--signer name@domain` pins the key its NIP-05 names (a small local HTTP server plays the domain).
// The verify pages in Chromium: the site-wide page `verify/#nevent1…` reads the event from the relay, and
// a verify page shows the signer's NIP-05 name when the profile on the relay has one that checks out.
import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HttpBunkerSigner,
  type NostrEvent,
  NSITE_NAMED_KIND,
  PAGE_EVENT_KIND,
  readSignatureBlock,
  verifySite,
} from '@siegel/core';
import { neventEncode } from 'nostr-tools/nip19';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { runSiegel } from '../site/support.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { eventually } from '../support/eventually.js';
import { startHostileRelay } from '../support/relay/hostile-relay.mjs';
import { queryRelay, type RunningRelay, startRelay } from '../support/relay-process.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

const PAGES = 12;

let bunker: RunningBunker;
let relay: RunningRelay;
let spare: RunningRelay;
let nip05: Server;
let nip05Host: string;
let root: string;
let dist: string;
/** The page events. */
let events: NostrEvent[];
/** Every event the run wrote: the page events and the site manifest. */
let published: NostrEvent[];
let site: StaticServer;
let chromium: LaunchedChromium;
/** Mallory: another key, whose NIP-05 name `mallory@…` its domain confirms. */
const otherSecret = generateSecretKey();
const otherKey = getPublicKey(otherSecret);

/** Send `list` to the relay at `url` as EVENT messages; resolves once every one is answered `OK` true. */
function publishEvents(url: string, list: readonly NostrEvent[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const pending = new Set(list.map((event) => event.id));
    const timer = setTimeout(
      () => reject(new Error(`${url}: ${pending.size} events not stored in time`)),
      15_000,
    );
    socket.onopen = () => {
      for (const event of list) socket.send(JSON.stringify(['EVENT', event]));
    };
    socket.onerror = () => reject(new Error(`cannot reach ${url}`));
    socket.onmessage = (message) => {
      const [type, id, ok, why] = JSON.parse(String(message.data)) as [string, string, boolean, string];
      if (type !== 'OK') return;
      if (!ok) reject(new Error(`${url} refused ${id}: ${why}`));
      pending.delete(id);
      if (pending.size === 0) {
        clearTimeout(timer);
        socket.close();
        resolve();
      }
    };
  });
}

function verify(args: string[]) {
  return runSiegel(['verify', 'dist', ...args], { cwd: root });
}

beforeAll(async () => {
  [bunker, relay, spare] = await Promise.all([useBunker(), startRelay(), startRelay()]);
  root = await mkdtemp(join(tmpdir(), 'siegel-verify-relay-'));
  dist = join(root, 'dist');
  await generateSite(dist, PAGES, 13);
  // Served (and so signed) at a local address: an event names the address its page is found at.
  site = await serveDirectory(dist);
  await writeFile(
    join(root, '.env'),
    `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=${bunker.apiToken}\nBUNKER_KEY_NAME=${bunker.keyName}\nSITE_URL=${site.url}\nSIEGEL_RELAYS=${relay.url}\n`,
  );
  const signed = await runSiegel(['sign', 'dist'], { cwd: root });
  expect(signed.code, signed.stderr).toBe(0);
  const files = (await readdir(join(dist, 'verify'))).filter((name) => name.endsWith('.json'));
  published = await Promise.all(
    files.map(async (name) => JSON.parse(await readFile(join(dist, 'verify', name), 'utf8')) as NostrEvent),
  );
  // One event per page, and the site manifest (verify/manifest.json, NIP-5A).
  events = published.filter((event) => event.kind === PAGE_EVENT_KIND);
  expect(events).toHaveLength(PAGES);
  expect(published.filter((event) => event.kind === NSITE_NAMED_KIND)).toHaveLength(1);
  expect(published).toHaveLength(PAGES + 1);
  // Publishing is another part of issue 13: put the events on the relay ourselves, then drop every file.
  await publishEvents(relay.url, published);
  await Promise.all(files.map((name) => unlink(join(dist, 'verify', name))));
  // The domain of the NIP-05 names: `alice` is the bunker's key, `mallory` another.
  nip05 = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/.well-known/nostr.json') {
      response.writeHead(404).end();
      return;
    }
    const names: Record<string, string> = { alice: bunker.pubkey, mallory: otherKey };
    const name = url.searchParams.get('name') ?? '';
    response
      .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
      .end(JSON.stringify({ names: name in names ? { [name]: names[name] } : {} }));
  });
  await new Promise<void>((resolve) => nip05.listen(0, '127.0.0.1', resolve));
  const address = nip05.address();
  nip05Host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  chromium = await launchChromium();
}, 120_000);

/** The first event's page path (`…/index.html`) and the nevent of its block. */
async function firstPage(): Promise<{ event: NostrEvent; nevent: string }> {
  const event = events[0] as NostrEvent;
  const url = event.tags.find((tag) => tag[0] === 'url')?.[1] ?? '';
  const path = url.replace(site.url, '').replace(/(^|\/)$/, '$1index.html');
  const block = readSignatureBlock(await readFile(join(dist, path), 'utf8'));
  expect(block?.eventId).toBe(event.id);
  expect(block?.relays).toEqual([relay.url]);
  return { event, nevent: block?.nevent ?? '' };
}

/** Open `path` under the site, wait for the verdict (and the identity step when valid). */
async function openVerify(path: string, waitForIdentity = true) {
  const page: Page = await chromium.tab();
  await page.goto(`${site.url}${path}`);
  const status = page.locator('#siegel-status:not([data-state="pending"])');
  await status.waitFor({ timeout: 20_000 });
  const state = await status.getAttribute('data-state');
  if (state === 'valid' && waitForIdentity)
    await page.locator('#siegel-status[data-identity]').waitFor({ timeout: 30_000 });
  const identity = page.locator('#siegel-identity');
  return {
    state,
    reason: await status.getAttribute('data-reason'),
    text: (await status.textContent()) ?? '',
    source: await status.getAttribute('data-source'),
    identity: await status.getAttribute('data-identity'),
    nip05: (await identity.count()) > 0 ? await identity.getAttribute('data-nip05') : null,
    coverage: (await page.locator('#siegel-coverage').count()) > 0,
    independent: (await page.locator('#siegel-independent').textContent()) ?? '',
  };
}

/** The bunker's key publishes a kind-0 profile naming `nip05`, `at` seconds after the others. */
async function publishProfile(nip05Name: string, at: number): Promise<void> {
  const signer = new HttpBunkerSigner({
    url: bunker.url,
    apiToken: bunker.apiToken,
    keyName: bunker.keyName,
  });
  const [profile] = await signer.signEvents([
    { kind: 0, created_at: at, tags: [], content: JSON.stringify({ name: 'Alice', nip05: nip05Name }) },
  ]);
  await publishEvents(relay.url, [profile as NostrEvent]);
  // The relay said OK; wait until it also serves this profile as the key's newest, as a reader's query sees
  // it (once, a page opened at once still got the previous profile).
  await eventually(async () => {
    const [newest] = (await queryRelay(relay.url, {
      kinds: [0],
      authors: [(profile as NostrEvent).pubkey],
      limit: 1,
    })) as NostrEvent[];
    return newest?.id === (profile as NostrEvent).id;
  }, 5_000);
}

afterAll(async () => {
  await new Promise<void>((resolve) => (nip05 ? nip05.close(() => resolve()) : resolve()));
  await Promise.all([bunker?.stop(), relay?.stop(), spare?.stop(), site?.close(), chromium?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel verify without verify/*.json', () => {
  it('verifies every page from the relay --relay names, and says so with --verbose', async () => {
    expect((await readdir(join(dist, 'verify'))).filter((name) => name.endsWith('.json'))).toEqual([]);
    const result = await verify(['--relay', relay.url, '--verbose']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`Siegel verify: ${PAGES} valid, 0 invalid, 0 not found`);
    expect(result.stdout.split(`event from ${relay.url}`)).toHaveLength(PAGES + 1);
  });

  it('in a directory, a loopback relay the nevent names is not asked: page content may not point the check at this machine (issue 24)', async () => {
    // From a directory without the project's .env: its SIEGEL_RELAYS are the verifier's own relays, which
    // `siegel verify` asks (for the manifest and missing events); here the verifier has none.
    const result = await runSiegel(['verify', dist], { cwd: dist });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    // The relay holds every event: one page asking it would be valid.
    expect(result.stdout).toContain(`0 valid, 0 invalid, ${PAGES} not found`);
    expect(result.stdout).toContain(
      "no relay to ask (the block's nevent names none that may be asked: a hint read from a page must be a wss:// relay on a public host; add `--relay`)",
    );
  });

  it('a live site answering 404 for verify/{id}.json: the events come from the relay too', async () => {
    const result = await runSiegel(['verify', site.url, '--verbose'], { cwd: root });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // The crawl reaches the pages that are linked (the generated site leaves one page unlinked).
    const valid = Number(/Siegel verify: (\d+) valid, 0 invalid, 0 not found/.exec(result.stdout)?.[1]);
    expect(valid).toBeGreaterThanOrEqual(PAGES - 2);
    expect(result.stdout.split(`event from ${relay.url}`)).toHaveLength(valid + 1);
    expect(site.requests.filter((path) => path.endsWith('.json')).length).toBeGreaterThanOrEqual(valid);
  });

  it('pins the key a NIP-05 name resolves to: the right name is valid, another names both keys', async () => {
    const right = await verify(['--relay', relay.url, '--signer', `alice@${nip05Host}`]);
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect(right.stdout).toContain(`${PAGES} valid, 0 invalid`);
    const wrong = await verify(['--relay', relay.url, '--signer', `Mallory@${nip05Host}`]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(`0 valid, ${PAGES} invalid`);
    expect(wrong.stdout).toContain(
      `signed by \`${bunker.pubkey}\`, expected \`${otherKey}\` (the key of \`Mallory@${nip05Host}\` by NIP-05)`,
    );
    const unknown = await verify(['--signer', `bob@${nip05Host}`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`NIP-05 \`bob@${nip05Host}\`:`);
    expect(unknown.stderr).toContain('names no key for `bob`');
  });
});

describe('the verify pages in Chromium, without verify/*.json', () => {
  it('the site-wide page reads the event from the relay and verifies; the signer’s NIP-05 name is shown', async () => {
    const { event, nevent } = await firstPage();
    await publishProfile(`alice@${nip05Host}`, Math.floor(Date.now() / 1000) - 60);
    const lookup = await openVerify(`verify/#${nevent}`);
    expect(lookup.state, lookup.text).toBe('valid');
    expect(lookup.source).toBe(relay.url);
    expect(lookup.nip05).toBe(`alice@${nip05Host}`);
    // Beside "Valid": what it covers; on every verify page: that the site serves it, and the independent check.
    expect(lookup.coverage).toBe(true);
    expect(lookup.independent).toMatch(
      /^This check is served by the site itself; .* siegel verify \{page URL\}\.$/,
    );
    // The event's own verify page (it embeds the event) agrees.
    const own = await openVerify(`verify/${event.id}/`);
    expect(own.state, own.text).toBe('valid');
    expect(own.nip05).toBe(`alice@${nip05Host}`);
  });

  it('cannot be borrowed: another key’s event for the same page, linked as verify/#nevent…, is not valid and shows no name', async () => {
    const { event } = await firstPage();
    const now = Math.floor(Date.now() / 1000);
    // Mallory signs the victim page's hash and url, with a profile whose NIP-05 name her domain confirms.
    const forged = finalizeEvent(
      { kind: 1063, created_at: now, tags: event.tags, content: event.content },
      otherSecret,
    );
    const profile = finalizeEvent(
      { kind: 0, created_at: now, tags: [], content: JSON.stringify({ nip05: `mallory@${nip05Host}` }) },
      otherSecret,
    );
    await publishEvents(relay.url, [forged, profile]);
    const link = neventEncode({ id: forged.id, author: otherKey, kind: 1063, relays: [relay.url] });
    const borrowed = await openVerify(`verify/#${link}`);
    expect(borrowed.state, borrowed.text).toBe('invalid');
    expect(borrowed.reason).toBe('event.not_named');
    expect(borrowed.text).toContain(
      `${forged.id} is not the signature this page names (it names ${event.id} by ${event.pubkey})`,
    );
    expect(borrowed.text).toContain(`signed by ${otherKey}, but the page’s block names ${event.pubkey}`);
    expect(borrowed.nip05).toBeNull();
    expect(borrowed.coverage).toBe(false);
    expect(borrowed.independent).toContain(`served by the site itself`);
    // The event's own verify page names the page's URL in the independent check.
    const own = await openVerify(`verify/${event.id}/`, false);
    expect(own.independent).toContain(`siegel verify ${event.tags.find((tag) => tag[0] === 'url')?.[1]}.`);
  });

  it('a profile naming a NIP-05 that points at another key shows no name', async () => {
    const { event } = await firstPage();
    await publishProfile(`mallory@${nip05Host}`, Math.floor(Date.now() / 1000));
    const own = await openVerify(`verify/${event.id}/`);
    expect(own.state, own.text).toBe('valid');
    expect(own.identity).toBe('none');
    expect(own.nip05).toBeNull();
  });

  it('an event the relay does not have is not verifiable, with the reason', async () => {
    const missing = 'ab'.repeat(32);
    const unknown = neventEncode({ id: missing, author: bunker.pubkey, kind: 1063, relays: [relay.url] });
    const result = await openVerify(`verify/#${unknown}`);
    expect(result.state).toBe('not_found');
    expect(result.reason).toBe('event.not_found');
    expect(result.text).toContain(`the site has no verify/${missing}.json`);
    expect(result.text).toContain(`event not found on relays ${relay.url} (not there)`);
  });
});

describe('with the relay down', () => {
  it('no page is valid, each says where it looked; --relay finds the events elsewhere', async () => {
    await publishEvents(spare.url, published);
    await relay.stop();
    const down = await verify(['--relay', relay.url]);
    expect(down.code).toBe(1);
    // An outage, not tampering: not found, counted apart from invalid.
    expect(down.stdout).toContain(`0 valid, 0 invalid, ${PAGES} not found`);
    expect(down.stdout).toContain(
      `event file \`verify/${events[0]?.id}.json\` is missing; event not found on relays \`${relay.url}\` (cannot connect)`,
    );
    const elsewhere = await verify(['--relay', spare.url, '--verbose']);
    expect(elsewhere.code, elsewhere.stdout + elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout.split(`event from ${spare.url}`)).toHaveLength(PAGES + 1);
    const refused = await verify(['--relay', 'ws://relay.example.com']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Relay `ws://relay.example.com` (--relay) must be a wss:// URL');
    // The site-wide verify page cannot reach the relay either: not verifiable, never valid.
    const { nevent } = await firstPage();
    const page = await openVerify(`verify/#${nevent}`);
    expect(page.state).toBe('not_found');
    expect(page.reason).toBe('event.not_found');
    expect(page.text).toContain(`${relay.url} (cannot connect)`);
  });
});

describe('a relay that lies', () => {
  it('forged events and events with other ids never make a page valid; the true event elsewhere does', async () => {
    const byId = new Map(events.map((event) => [event.id, event]));
    // For every id asked: the event with its text changed and with a tag added (the id kept, so it no longer
    // matches the content), and another page's valid event (another id).
    const liar = await startHostileRelay((filter) => {
      // The site manifest's query (by kind and author, no ids) gets nothing.
      if (!Array.isArray(filter.ids)) return [];
      const id = (filter.ids as string[])[0] as string;
      const real = byId.get(id) as NostrEvent;
      const other = events.find((event) => event.id !== id) as NostrEvent;
      return [
        { ...real, content: `${real.content} (forged)` },
        { ...real, tags: [...real.tags, ['t', 'x']] },
        other,
      ];
    });
    try {
      const alone = await verifySite(dist, { relays: [liar.url], relayTimeoutMs: 5000 });
      expect(alone.valid).toBe(0);
      // Forged events count for nothing: the true one was not found (an event anyone could send proves nothing).
      expect(alone.notFound).toBe(PAGES);
      expect(liar.requests.filter((filter) => Array.isArray((filter as { ids?: unknown }).ids))).toHaveLength(
        PAGES,
      );
      expect(alone.pages[0]?.problems.map((problem) => problem.message).join('\n')).toContain(
        `event not found on relays \`${liar.url}\` (sent 3 events that did not check out)`,
      );
      // The liar answers first; the real relay's event still counts, and only that one.
      const both = await verifySite(dist, { relays: [liar.url, spare.url], relayTimeoutMs: 5000 });
      expect(both.valid).toBe(PAGES);
      expect(new Set(both.pages.map((page) => page.eventFrom))).toEqual(new Set([spare.url]));
    } finally {
      await liar.close();
    }
  });
});

describe('the site-wide verify page', () => {
  it('is never signed itself: signing the signed site again signs nothing', async () => {
    const again = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`0 signed, ${PAGES} unchanged`);
    const lookupPage = await readFile(join(dist, 'verify', 'index.html'), 'utf8');
    expect(lookupPage).toContain('data-lookup=""');
    expect(readSignatureBlock(lookupPage)).toBeUndefined();
  });
});
