// Issue 36: what a page loads and runs, as the site manifest pins it (page/page-loads.ts) — one function for
// the signer and every verifier, so each case here is what both compute.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readPageFacts } from '../src/page/page-facts.js';
import { cspHash, pageLoads, sitePathOf } from '../src/page/page-loads.js';
import { parsePage } from '../src/page/parse.js';

const SITE = 'https://x.github.io/proj/';
const PAGE = 'https://x.github.io/proj/blog/a/';
const loadsOf = (html: string, address = PAGE) =>
  readPageFacts(html, parsePage(html), 'siegel-page/2', { address, siteUrl: SITE }).loads;
const csp = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;

describe('cspHash', () => {
  it('is CSP’s hash-source of the UTF-8 text', () => {
    expect(cspHash("alert('ü')")).toBe(csp("alert('ü')"));
    expect(cspHash('')).toBe('sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});

describe('pageLoads', () => {
  it('lists inline scripts (any type) and styles by their hash, in document order, each once', () => {
    const html =
      '<head><style>p{}</style><script>a()</script></head><body><script type="application/ld+json">{}</script><script>a()</script></body>';
    expect(loadsOf(html)).toEqual([`style ${csp('p{}')}`, `script ${csp('a()')}`, `script ${csp('{}')}`]);
  });

  it('lists fetched scripts and styles by their address in the site, query and fragment left out', () => {
    const html = [
      '<script src="../../app.js?v=3#x"></script>',
      '<link rel="Stylesheet preload" href="/proj/s.css">',
      '<link rel=modulepreload href="chunk%20one.js">',
      '<link rel=preload as=SCRIPT href="/proj/p.js"><link rel=preload as=font href="/proj/f.woff2">',
      '<link rel=icon href="/proj/i.png"><link rel=stylesheet>',
    ].join('');
    expect(loadsOf(html)).toEqual([
      'script /app.js',
      'style /s.css',
      'script /blog/a/chunk one.js',
      'script /p.js',
    ]);
  });

  it('writes another site’s address in full, with the integrity attribute as written', () => {
    const html =
      '<script src="https://cdn.example/a.js#f" integrity="sha384-abc"></script><link rel=stylesheet href="/other/s.css">';
    expect(loadsOf(html)).toEqual([
      'script https://cdn.example/a.js sha384-abc',
      'style https://x.github.io/other/s.css',
    ]);
  });

  it('resolves against the base URL a <base href> sets', () => {
    expect(loadsOf('<base href="/proj/deep/"><script src="x.js"></script>')).toEqual(['script /deep/x.js']);
    expect(loadsOf('<base href="https://evil.example/"><script src="x.js"></script>')).toEqual([
      'script https://evil.example/x.js',
    ]);
  });

  it('leaves out template contents and <noscript> content, which a browser with scripts on does not run', () => {
    expect(
      loadsOf('<template><script>t()</script></template><noscript><style>n{}</style></noscript>'),
    ).toEqual([]);
  });

  it('counts a script a <noscript> hides from the scripting-off reading (a live page runs it)', () => {
    const html = '<body><noscript><style></noscript><script>evil()</script></style></noscript>';
    expect(loadsOf(html)).toEqual([`script ${csp('evil()')}`]);
  });

  it('counts SVG scripts and styles', () => {
    const html = '<svg><script href="/proj/s.js"></script><script>svg()</script><style>c{}</style></svg>';
    expect(loadsOf(html)).toEqual(['script /s.js', `script ${csp('svg()')}`, `style ${csp('c{}')}`]);
  });

  it('is empty without an origin, and pageLoads reads a tree directly', () => {
    const html = '<script>a()</script>';
    expect(readPageFacts(html, parsePage(html), 'siegel-page/2').loads).toEqual([]);
    expect(pageLoads(parsePage(html), PAGE, SITE)).toEqual([`script ${csp('a()')}`]);
  });
});

describe('sitePathOf', () => {
  it.each([
    ['https://x.github.io/proj/a.js?v=2', '/a.js'],
    ['https://x.github.io/proj', '/'],
    ['https://x.github.io/proj/', '/'],
    ['https://x.github.io/proj/%C3%BC.css', '/ü.css'],
    ['https://x.github.io/project/a.js', undefined],
    ['http://x.github.io/proj/a.js', undefined],
  ])('%s → %s', (url, path) => {
    expect(sitePathOf(new URL(url), SITE)).toBe(path);
  });
});
