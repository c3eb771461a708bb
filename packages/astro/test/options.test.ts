import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { findRewritersAfter, formatRewriterWarning, parseOptions, siegel } from '../src/index.js';

describe('@siegel/astro options', () => {
  it('accepts every documented option', () => {
    const options = {
      site: 'https://example.com',
      selector: 'article',
      dryRun: true,
      verbose: true,
      cacheFile: '.cache/sign.json',
      onError: 'warn' as const,
      bunkerUrl: 'http://127.0.0.1:7777',
      bunkerApiToken: 't',
      bunkerKeyName: 'blog',
    };
    expect(parseOptions(options)).toEqual(options);
    expect(parseOptions(undefined)).toEqual({});
  });

  it('rejects a typo, naming it in backticks', () => {
    expect(() => parseOptions({ dryrun: true })).toThrow(/unknown option `dryrun`/);
    expect(() => siegel({ sitee: 'https://example.com' } as never)).toThrow(/`sitee`/);
  });

  it('rejects bad values', () => {
    expect(() => parseOptions({ onError: 'ignore' })).toThrow(/`onError`/);
    expect(() => parseOptions({ site: 'example.com' })).toThrow(/`site`/);
    expect(() => parseOptions({ dryRun: 'yes' })).toThrow(/`dryRun`/);
  });
});

describe('@siegel/astro integration', () => {
  it('is named after its npm package, default-exported', () => {
    expect(siegel().name).toBe('@siegel/astro');
    expect(api.default).toBe(siegel);
    expect(Object.keys(api).sort()).toEqual(
      [
        'DEFAULTS',
        'INTEGRATION_NAME',
        'KNOWN_HTML_REWRITERS',
        'default',
        'findRewritersAfter',
        'formatRewriterWarning',
        'optionsSchema',
        'parseOptions',
        'siegel',
      ].sort(),
    );
  });

  it('fails a build without a site URL with a clear message', () => {
    const setup = siegel().hooks['astro:config:setup'] as (input: unknown) => void;
    expect(() => setup({ config: { site: undefined }, command: 'build' })).toThrow(
      /needs the site URL: set `site`/,
    );
    expect(() => setup({ config: { site: 'https://example.com' }, command: 'build' })).not.toThrow();
    expect(() => setup({ config: { site: undefined }, command: 'dev' })).not.toThrow();
  });
});

describe('findRewritersAfter', () => {
  const named = (...names: string[]) => names.map((name) => ({ name }));

  it('finds known compressors and minifiers listed after Siegel', () => {
    expect(
      findRewritersAfter(
        named('@astrojs/mdx', '@siegel/astro', 'astro-compress', '@astrojs/sitemap'),
        '@siegel/astro',
      ),
    ).toEqual(['astro-compress']);
    expect(
      findRewritersAfter(
        named('@siegel/astro', '@playform/compress', 'astro-min', 'astro-minify-html'),
        '@siegel/astro',
      ),
    ).toEqual(['@playform/compress', 'astro-min', 'astro-minify-html']);
  });

  it('is quiet when they run before Siegel, or when there are none', () => {
    expect(findRewritersAfter(named('astro-compress', '@siegel/astro'), '@siegel/astro')).toEqual([]);
    expect(
      findRewritersAfter(named('@siegel/astro', '@astrojs/sitemap', 'astro-icon'), '@siegel/astro'),
    ).toEqual([]);
  });

  it('leaves pre-compressors alone: they only add .gz/.br copies and belong after Siegel', () => {
    expect(findRewritersAfter(named('@siegel/astro', 'astro-compressor'), '@siegel/astro')).toEqual([]);
  });

  it('says how to fix it', () => {
    expect(formatRewriterWarning(['astro-compress'], '@siegel/astro')).toMatch(/move siegel\(\) to the end/);
  });
});

describe('withBase', () => {
  it('puts Astro’s base path under the site URL once', async () => {
    const { withBase } = await import('../src/site-url.js');
    expect(withBase('https://x.dev', '/')).toBe('https://x.dev');
    expect(withBase('https://x.dev/', undefined)).toBe('https://x.dev');
    expect(withBase('https://x.dev', '/docs/')).toBe('https://x.dev/docs');
    expect(withBase('https://x.dev/docs', '/docs')).toBe('https://x.dev/docs');
  });
});
