import { describe, expect, it } from 'vitest';
import { hashPage, renderSignatureBlock, SiegelError, signSiteOptionsSchema } from '../src/index.js';
import { defineIntegrationOptions, integrationOptionsSchema } from '../src/integration/integration.js';
import { resolveSignSiteOptions } from '../src/options/options.js';

const SITE = 'https://example.com';

describe('the one options schema', () => {
  it('refuses malformed values by itself, naming the option and quoting the value', () => {
    expect(() => resolveSignSiteOptions({ site: SITE, dryRun: 'yes' as never })).toThrow(
      '`dryRun` must be true or false, got `yes`',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, batchSize: 0 })).toThrow(
      '`batchSize` must be a positive integer, got `0`',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, parseWorkers: 1.5 })).toThrow(
      '`parseWorkers` must be a whole number ≥ 0, got `1.5`',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, outDir: 'dist' } as never)).toThrow(
      'Unknown option `outDir`',
    );
  });

  it('takes mirrors from `mirrors` or SIEGEL_MIRRORS, normalised like `site`, and names the option of a bad one', () => {
    expect(resolveSignSiteOptions({ site: SITE }).mirrors).toEqual([]);
    expect(
      resolveSignSiteOptions({
        site: `${SITE}/`,
        mirrors: [
          ' https://mirror.example/docs/ ',
          'https://mirror.example/docs',
          `${SITE}/`,
          'http://b.example',
        ],
      }).mirrors,
    ).toEqual(['https://mirror.example/docs', 'http://b.example']);
    const env = { SIEGEL_MIRRORS: 'https://a.example, https://b.example/x/' };
    expect(resolveSignSiteOptions({ site: SITE, env }).mirrors).toEqual([
      'https://a.example',
      'https://b.example/x',
    ]);
    expect(resolveSignSiteOptions({ site: SITE, env, mirrors: [] }).mirrors).toEqual([]);
    expect(() => resolveSignSiteOptions({ site: SITE, mirrors: ['mirror.example'] })).toThrow(
      'The mirror URL `mirror.example` is not an absolute URL (`mirrors`)',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, env: { SIEGEL_MIRRORS: 'ftp://x.example' } })).toThrow(
      'The mirror URL `ftp://x.example` must start with http:// or https:// (`SIEGEL_MIRRORS`)',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, mirrors: 'https://a.example' as never })).toThrow(
      '`mirrors` must be an array of absolute http(s) URLs, got `https://a.example`',
    );
    const { parseOptions } = defineIntegrationOptions('@siegel/x', {});
    expect(parseOptions({ mirrors: ['https://a.example'] }).mirrors).toEqual(['https://a.example']);
    expect(() => parseOptions({ mirrors: ['a.example'] })).toThrow(
      '@siegel/x: option `mirrors.0`: must be an absolute http(s) URL, got `a.example`',
    );
  });

  it("takes the manifest's Blossom servers by `siegel publish --blossom`'s one rule (net/blossom.ts)", () => {
    const servers = (options: Parameters<typeof resolveSignSiteOptions>[0]) =>
      resolveSignSiteOptions(options).manifest.servers;
    expect(
      servers({ site: SITE, env: { SIEGEL_BLOSSOM: ' https://b.example/, http://127.0.0.1:8080' } }),
    ).toEqual(['https://b.example', 'http://127.0.0.1:8080']);
    expect(() => servers({ site: SITE, env: { SIEGEL_BLOSSOM: 'http://b.example' } })).toThrow(
      'Blossom server `http://b.example` (SIEGEL_BLOSSOM) must be an https:// URL',
    );
    expect(() => servers({ site: SITE, blossom: ['https://b.example/?x=1'] })).toThrow(
      '`blossom.0` must be an https:// URL (http:// only on a loopback host), without query or fragment',
    );
  });

  it('checks an environment number only where the option does not set it', () => {
    const env = { SIEGEL_BATCH_SIZE: 'many' };
    expect(() => resolveSignSiteOptions({ site: SITE, env })).toThrow(
      '`batchSize` must be a positive integer',
    );
    expect(resolveSignSiteOptions({ site: SITE, env, batchSize: 7 }).batchSize).toBe(7);
  });

  it('takes the largest page from `maxPageBytes` or SIEGEL_MAX_PAGE_BYTES (a size with a unit), 32 MiB by default', () => {
    expect(resolveSignSiteOptions({ site: SITE }).maxPageBytes).toBe(32 * 1024 * 1024);
    expect(resolveSignSiteOptions({ site: SITE, env: { SIEGEL_MAX_PAGE_BYTES: '64MiB' } }).maxPageBytes).toBe(
      64 * 1024 * 1024,
    );
    expect(resolveSignSiteOptions({ site: SITE, env: { SIEGEL_MAX_PAGE_BYTES: '1000' } }).maxPageBytes).toBe(
      1000,
    );
    expect(
      resolveSignSiteOptions({ site: SITE, maxPageBytes: 5, env: { SIEGEL_MAX_PAGE_BYTES: 'x' } })
        .maxPageBytes,
    ).toBe(5);
    expect(() => resolveSignSiteOptions({ site: SITE, env: { SIEGEL_MAX_PAGE_BYTES: 'lots' } })).toThrow(
      '`SIEGEL_MAX_PAGE_BYTES` must be a size in bytes such as `33554432` or `32MiB`, got `lots`',
    );
    expect(() => resolveSignSiteOptions({ site: SITE, maxPageBytes: 0 })).toThrow(
      '`maxPageBytes` must be a positive integer, got `0`',
    );
  });

  it('gives the integrations a strict subset of it plus onError, and their own fields on top', () => {
    const shared = Object.keys(integrationOptionsSchema.shape).filter((key) => key !== 'onError');
    const signSiteKeys = Object.keys(signSiteOptionsSchema.shape);
    for (const key of shared) expect(signSiteKeys).toContain(key);
    const { parseOptions } = defineIntegrationOptions('@siegel/x', {});
    expect(() => parseOptions({ batchSize: 5 })).toThrow('@siegel/x: unknown option `batchSize`');
    expect(() => parseOptions({ cacheFile: '' })).toThrow(
      /@siegel\/x: option `cacheFile`: must be a file path/,
    );
  });
});

describe('selectors read by css-what, kept to the supported subset', () => {
  for (const selector of [
    'a + b',
    'a ~ b',
    'a[b=c i]',
    'svg|main',
    '> main',
    'main >',
    'a[b!=c]',
    'a::before',
  ]) {
    it(`refuses \`${selector}\``, () => {
      expect(() => hashPage('<main>x</main>', { selector }), selector).toThrow(SiegelError);
      expect(() => hashPage('<main>x</main>', { selector }), selector).toThrow(/Unsupported selector/);
    });
  }

  it('reads escapes and quoted values the way querySelector does', () => {
    const html = '<div id="123"><p data-x=\'say "hi"\'>one</p></div>';
    expect(hashPage(html, { selector: '#\\31 23' })).toBe(hashPage(html, { selector: 'div' }));
    expect(hashPage(html, { selector: '[data-x="say \\"hi\\""]' })).toBe(hashPage(html, { selector: 'p' }));
  });
});

describe('nevent relay hints', () => {
  it('refuses a relay hint a NIP-19 TLV cannot hold, instead of writing a broken nevent', () => {
    const event = {
      id: 'a'.repeat(64),
      pubkey: 'b'.repeat(64),
      sig: 'c'.repeat(128),
      kind: 1063,
      created_at: 0,
      content: '',
      tags: [['x', 'd'.repeat(64)]],
    };
    const long = `wss://${'r'.repeat(260)}.example`;
    expect(() => renderSignatureBlock(event, { verifyUrl: `${SITE}/verify/x`, relays: [long] })).toThrow(
      /longer than 255 bytes/,
    );
    expect(() => resolveSignSiteOptions({ site: SITE, relays: [long] })).toThrow(/longer than 255 bytes/);
  });
});
