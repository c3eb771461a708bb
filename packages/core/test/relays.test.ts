import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decode } from 'nostr-tools/nip19';
import { describe, expect, it, vi } from 'vitest';
import { signSite } from '../src/index.js';
import {
  integrationOptionsSchema,
  parseIntegrationOptions,
  toSignSiteOptions,
} from '../src/integration/integration.js';
import { allowRelayHintsFrom, MAX_RELAY_HINTS, parseRelays, pickRelayHints } from '../src/nostr/relays.js';
import { resolveSignSiteOptions } from '../src/options/options.js';
import { runCli } from './support/run-cli.js';
import {
  CountingSigner,
  collectingLogger,
  cp,
  FIXTURE_PAGES,
  KEY_A,
  SITE,
  useFixtureProjects,
} from './support/site-fixture.js';

// Timeouts (docs/testing.md): relay processes: 11 s among parallel files
vi.setConfig({ testTimeout: 60_000 });

const SIGNED = Object.keys(FIXTURE_PAGES).filter((path) => path !== 'no-main.html');
const { createProject } = useFixtureProjects();

/** The relays in a signed page's `rel="alternate"` `nostr:nevent1…` link. */
function relaysOf(html: string): string[] {
  const nevent = /<link rel="alternate" href="nostr:(nevent1[0-9a-z]+)">/.exec(html)?.[1];
  if (!nevent) throw new Error('no nevent link');
  const decoded = decode(nevent);
  if (decoded.type !== 'nevent') throw new Error(decoded.type);
  return decoded.data.relays ?? [];
}

describe('relay hints: validation', () => {
  it('takes wss:// URLs (trimmed, deduplicated, in order) and rejects anything else with the value quoted', () => {
    expect(
      parseRelays([' wss://relay.example.com ', 'wss://nos.lol/', '', 'wss://relay.example.com ']),
    ).toEqual(['wss://relay.example.com', 'wss://nos.lol/']);
    // A local or test relay: ws:// on loopback only.
    expect(parseRelays(['ws://127.0.0.1:7000', 'ws://localhost:7001/', 'ws://[::1]:7002'])).toEqual([
      'ws://127.0.0.1:7000',
      'ws://localhost:7001/',
      'ws://[::1]:7002',
    ]);
    expect(() => parseRelays(['ws://192.168.1.5:7000'])).toThrow(
      'Relay `ws://192.168.1.5:7000` (relays) must be a wss:// URL (ws:// only on a loopback host)',
    );
    for (const bad of [
      'https://relay.example.com',
      'ws://relay.example.com',
      'relay.example.com',
      'wss://u:p@r.example',
    ]) {
      expect(() => parseRelays([bad]), bad).toThrow(`Relay \`${bad}\` (relays)`);
    }
  });

  it('reads SIEGEL_RELAYS (comma-separated) from env; the option wins; bad values are usage errors', () => {
    const base = { site: SITE };
    expect(resolveSignSiteOptions(base).relays).toEqual([]);
    expect(
      resolveSignSiteOptions({ ...base, env: { SIEGEL_RELAYS: 'wss://a.example, wss://b.example' } }).relays,
    ).toEqual(['wss://a.example', 'wss://b.example']);
    expect(
      resolveSignSiteOptions({
        ...base,
        env: { SIEGEL_RELAYS: 'wss://a.example' },
        relays: ['wss://c.example'],
      }).relays,
    ).toEqual(['wss://c.example']);
    expect(() =>
      resolveSignSiteOptions({ ...base, env: { SIEGEL_RELAYS: 'wss://a.example,http://b' } }),
    ).toThrow(/Relay `http:\/\/b` \(SIEGEL_RELAYS\) must be a wss:\/\/ URL/);
  });

  it('is one of the shared integration options, validated and passed through', () => {
    const options = parseIntegrationOptions(
      integrationOptionsSchema,
      { relays: ['wss://a.example'] },
      '@siegel/x',
    );
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    expect(toSignSiteOptions(options, { root: '/nowhere', logger }).relays).toEqual(['wss://a.example']);
    expect(() =>
      parseIntegrationOptions(integrationOptionsSchema, { relays: ['https://a.example'] }, '@siegel/x'),
    ).toThrow('@siegel/x: option `relays.0`: must be a wss:// URL');
  });
});

describe('relay hints: which ones a verifier asks (issue 24)', () => {
  const public100 = Array.from({ length: 100 }, (_, i) => `wss://relay-${i}.example`);

  it("takes at most 5, the first valid ones in the page's order, skipping bad and repeated hints", () => {
    expect(MAX_RELAY_HINTS).toBe(5);
    expect(pickRelayHints(public100)).toEqual(public100.slice(0, 5));
    expect(
      pickRelayHints([
        'https://relay.example',
        'wss://a.example',
        ' wss://a.example ',
        'wss://u:p@b.example',
        'ws://relay.example',
        `wss://${'x'.repeat(260)}.example`,
        'not a url',
        'wss://b.example',
      ]),
    ).toEqual(['wss://a.example', 'wss://b.example']);
    // The cap counts the hints that may be asked: refused ones do not use it up.
    const local = Array.from({ length: 10 }, (_, i) => `ws://127.0.0.1:${7000 + i}`);
    expect(pickRelayHints([...local, ...public100], allowRelayHintsFrom(undefined))).toEqual(
      public100.slice(0, 5),
    );
  });

  it('from a directory or a public site: no loopback, private or link-local relay; from a local preview: those too', () => {
    const fromPage = allowRelayHintsFrom(undefined);
    for (const relay of [
      'ws://127.0.0.1:7000',
      'ws://localhost:7000',
      'ws://[::1]:7000',
      'wss://10.0.0.5',
      'wss://192.168.1.2:443',
      'wss://169.254.169.254',
      'wss://relay.localhost',
    ])
      expect(fromPage(relay), relay).toBe(false);
    expect(fromPage('wss://relay.example.com')).toBe(true);
    expect(allowRelayHintsFrom('blog.example.com')('ws://127.0.0.1:7000')).toBe(false);
    expect(allowRelayHintsFrom('127.0.0.1')('ws://127.0.0.1:7000')).toBe(true);
    expect(allowRelayHintsFrom('localhost')('wss://10.0.0.5')).toBe(true);
  });
});

describe('relay hints: signing', () => {
  it('a relay change re-signs nothing and gives every unchanged page the new nevent', async () => {
    const { dist, cacheFile } = await createProject();
    const fresh = `${dist}-unsigned`;
    await cp(dist, fresh, { recursive: true });
    const signer = new CountingSigner(KEY_A);
    const { logger, info } = collectingLogger();
    const run = (relays: string[], dir = dist) =>
      signSite(dir, { site: SITE, signer, cacheFile, logger, progress: false, relays });

    expect((await run(['wss://one.example'])).signed).toBe(4);
    for (const path of SIGNED)
      expect(relaysOf(await readFile(join(dist, path), 'utf8'))).toEqual(['wss://one.example']);
    const ids = new Map<string, string>();
    for (const path of SIGNED)
      ids.set(
        path,
        /nostr:event" content="([0-9a-f]{64})/.exec(await readFile(join(dist, path), 'utf8'))?.[1] ?? '',
      );

    // The signed output again, other relays: no bunker call, same events, new nevent in every page.
    const calls = signer.calls;
    const second = await run(['wss://two.example', 'wss://three.example']);
    expect(second).toMatchObject({ signed: 0, unchanged: 4, failed: 0 });
    expect(signer.calls).toBe(calls);
    expect(info.join('\n')).toContain('relay hints changed');
    for (const path of SIGNED) {
      const html = await readFile(join(dist, path), 'utf8');
      expect(relaysOf(html), path).toEqual(['wss://two.example', 'wss://three.example']);
      expect(html).toContain(`<meta name="nostr:event" content="${ids.get(path)}">`);
    }
    const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
    expect(cache.relays).toEqual(['wss://two.example', 'wss://three.example']);

    // A fresh unsigned build gets the current relays from the cached events, too.
    await run(['wss://two.example', 'wss://three.example'], fresh);
    for (const path of SIGNED) {
      expect(await readFile(join(fresh, path), 'utf8')).toBe(await readFile(join(dist, path), 'utf8'));
    }
    // No relays: the hint is gone again, still no signing.
    await run([]);
    for (const path of SIGNED) expect(relaysOf(await readFile(join(dist, path), 'utf8'))).toEqual([]);
    expect(signer.calls).toBe(calls);
    await rm(fresh, { recursive: true, force: true });
  });
});

describe('relay hints: CLI', () => {
  it('--relay (repeatable) and SIEGEL_RELAYS; --help names them; a bad relay is a usage error', async () => {
    const { root, dist } = await createProject();
    const env = { SIEGEL_SECRET_KEY: '9'.repeat(64), SITE_URL: SITE, SIEGEL_RELAYS: 'wss://env.example' };
    const help = await runCli(['--help'], root);
    expect(help.stdout).toMatch(
      /--relay URL +relay \(wss:\/\/; ws:\/\/ on loopback\): the block's nevent hint/,
    );
    expect(help.stdout).toContain('SIEGEL_RELAYS');
    expect((await runCli(['sign'], root, env)).code).toBe(0);
    expect(relaysOf(await readFile(join(dist, 'about.html'), 'utf8'))).toEqual(['wss://env.example']);
    const flags = await runCli(
      ['sign', '--relay', 'wss://a.example', '--relay', 'wss://b.example'],
      root,
      env,
    );
    expect(flags.code).toBe(0);
    expect(flags.stdout).toContain('0 signed, 4 unchanged');
    expect(relaysOf(await readFile(join(dist, 'about.html'), 'utf8'))).toEqual([
      'wss://a.example',
      'wss://b.example',
    ]);
    const bad = await runCli(['sign', '--relay', 'http://a.example'], root, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Relay `http://a.example` (--relay) must be a wss:// URL');
    const badEnv = await runCli(['sign'], root, { ...env, SIEGEL_RELAYS: 'nope' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('Relay `nope` (SIEGEL_RELAYS) is not a URL');
  }, 60_000); // five CLI processes: about 2 s alone, several times that while the whole suite runs on 2 cores
});
