// Issue 35, items 2 and 3: the title and the base URL a reader's browser takes from a page — read one way
// (page/page-facts.ts) for signing and for every verifier — and the rule book's `page.title` and `page.base`.
// The cross-verifier cases are in test/support/verdict-cases.ts.
import { finalizeEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { analyzePage, createPageEvent, type NostrEvent } from '../src/index.js';
import { readPageForCheck } from '../src/page/analyze.js';
import { readBaseHref, readDocumentTitle, readPageFacts, resolveBaseUrl } from '../src/page/page-facts.js';
import { parsePage } from '../src/page/parse.js';
import { judgePage } from '../src/verify/rules.js';

const facts = (html: string) => readPageFacts(html, parsePage(html), 'siegel-page/2');

describe('readDocumentTitle: as document.title reads it', () => {
  it.each([
    ['<title>  Hello\n\t world  </title>', 'Hello world'],
    ['<title></title>', undefined],
    ['<title> \n </title>', undefined],
    ['<p>no title</p>', undefined],
    // The first in tree order, wherever it is: a second one does not count, one in <body> does.
    ['<title>First</title><title>Second</title>', 'First'],
    ['<body><p>x</p><title>In body</title>', 'In body'],
    // An SVG <title> is not the document's title; the HTML one after it is.
    ['<body><svg><title>Icon</title></svg><title>Page</title>', 'Page'],
    ['<body><svg><title>Icon</title></svg>', undefined],
    // A <template>'s contents are not in the document.
    ['<template><title>Inert</title></template><title>Real</title>', 'Real'],
    // RCDATA: markup in a title is text; character references are decoded.
    ['<title>A <b>bold</b> &amp; B</title>', 'A <b>bold</b> & B'],
    // Non-ASCII white space is not collapsed (HTML collapses ASCII white space only).
    ['<title>a\u00a0\u00a0b</title>', 'a\u00a0\u00a0b'],
  ])('%s → %s', (html, title) => {
    expect(readDocumentTitle(parsePage(html))).toBe(title);
  });

  it('analyzePage and readPageForCheck read the same title (signing and verifying)', () => {
    const html = '<!doctype html><body><main>x</main><title>\n Late  title </title>';
    expect(analyzePage(html).title).toBe('Late title');
    expect(readPageForCheck(Buffer.from(html), 'main').title).toBe('Late title');
  });
});

describe('readBaseHref and resolveBaseUrl: the base URL as a browser sets it', () => {
  it.each([
    ['<base href="/docs/">', '/docs/'],
    ['<p>no base</p>', undefined],
    // A target-only <base> sets no base URL; the first one with an href does.
    ['<base target="_blank"><base href="/second/">', '/second/'],
    ['<base target="_blank">', undefined],
    ['<base href="/first/"><base href="/second/">', '/first/'],
    // In <body> too: the parser keeps it there, and browsers use it.
    ['<body><main>x</main><base href="https://evil.example/">', 'https://evil.example/'],
    ['<base href="">', ''],
    // Not an SVG element of that name, not inside a template.
    ['<body><svg><base href="/svg/"></base></svg>', undefined],
    ['<template><base href="/inert/"></template>', undefined],
  ])('%s → %s', (html, href) => {
    expect(readBaseHref(parsePage(html))).toBe(href);
  });

  it('resolves against the page’s address; a failure, data: or javascript: falls back to the address', () => {
    const page = 'https://example.com/blog/x/';
    expect(resolveBaseUrl('/', page)).toBe('https://example.com/');
    expect(resolveBaseUrl('../', page)).toBe('https://example.com/blog/');
    expect(resolveBaseUrl('other/', page)).toBe('https://example.com/blog/x/other/');
    expect(resolveBaseUrl('  https://evil.example/a  ', page)).toBe('https://evil.example/a');
    expect(resolveBaseUrl('//cdn.example/', page)).toBe('https://cdn.example/');
    expect(resolveBaseUrl('', page)).toBe(page);
    expect(resolveBaseUrl(undefined, page)).toBeUndefined();
    expect(resolveBaseUrl('data:text/html,x', page)).toBeUndefined();
    expect(resolveBaseUrl('JavaScript:alert(1)', page)).toBeUndefined();
    expect(resolveBaseUrl('http://[::1', page)).toBeUndefined();
  });

  it('a <title> or <base> a <noscript> comment hides from the hash’s reading is the one a reader with scripts on gets', () => {
    const html =
      '<!doctype html><head><noscript><!-- </noscript><base href="https://evil.example/"><title>Forged</title> --></noscript><title>Real</title></head><main>x</main>';
    // Scripting off (the hash's reading): all of it is one comment.
    expect(readDocumentTitle(parsePage(html))).toBe('Real');
    expect(facts(html)).toEqual({ title: 'Forged', baseHref: 'https://evil.example/', loads: [] });
    expect(analyzePage(html)).toMatchObject({ title: 'Forged', baseHref: 'https://evil.example/' });
    // A <title> or <base> inside a <noscript> in <body> is text to a reader with scripts on.
    const inside =
      '<!doctype html><body><noscript><title>Off</title><base href="/off/"></noscript><main>x</main>';
    expect(readDocumentTitle(parsePage(inside))).toBe('Off');
    expect(facts(inside)).toEqual({ title: undefined, baseHref: undefined, loads: [] });
    // A tag manager's <noscript> after the head: the same either way.
    const manager =
      '<!doctype html><head><base href="/"><title>T</title></head><body><noscript><iframe src="x"></iframe></noscript><main>x</main>';
    expect(facts(manager)).toEqual({ title: 'T', baseHref: '/', loads: [] });
  });
});

const KEY = Uint8Array.from(Buffer.from('7'.repeat(64), 'hex'));
const URL_ = 'https://example.com/blog/x/';
const page = (head: string) =>
  `<!doctype html><head>${head}</head><body><main><p>Signed words</p><a href="next/">next</a></main>`;

/** The rule book's verdict and codes for `html` at `address`, signed as `signedHtml` with `base` and `fallbacks`. */
function judge(
  html: string,
  options: { signedHtml?: string; base?: string; address?: string; fallbacks?: string[] } = {},
) {
  const signedAs = analyzePage(options.signedHtml ?? html);
  const event: NostrEvent = finalizeEvent(
    createPageEvent({
      hash: signedAs.hash as string,
      url: URL_,
      ...(signedAs.title ? { title: signedAs.title } : {}),
      ...(options.base ? { base: options.base } : {}),
      ...(options.fallbacks ? { fallbacks: options.fallbacks } : {}),
    }),
    KEY,
  );
  const { verdict, problems } = judgePage({
    readPage: (spec) => analyzePage(html, { spec }),
    block: { eventId: event.id, pubkey: event.pubkey },
    event: { found: event },
    address: 'address' in options ? options.address : URL_,
  });
  return { codes: [verdict, ...problems.map((problem) => problem.code)], problems };
}

describe('judgePage: page.title', () => {
  it('valid when the title is the signed one (white space as document.title reads it)', () => {
    expect(judge(page('<title>T</title>'), { signedHtml: page('<title>\n  T </title>') }).codes).toEqual([
      'valid',
    ]);
    expect(judge(page('')).codes).toEqual(['valid']);
  });

  it('a changed, added or removed title is invalid, in plain words', () => {
    const changed = judge(page('<title>Forged</title>'), { signedHtml: page('<title>Real</title>') });
    expect(changed.codes).toEqual(['invalid', 'page.title']);
    expect(changed.problems[0]?.message).toBe(
      'the page’s title is “Forged”, but it was signed as “Real” (the tab, bookmarks and link previews show it)',
    );
    const added = judge(page('<title>Added</title>'), { signedHtml: page('') });
    expect(added.codes).toEqual(['invalid', 'page.title']);
    expect(added.problems[0]?.message).toMatch(/^the page’s title is “Added”, but it was signed without one/);
    const removed = judge(page(''), { signedHtml: page('<title>Real</title>') });
    expect(removed.codes).toEqual(['invalid', 'page.title']);
    expect(removed.problems[0]?.message).toMatch(/^the page has no title, but it was signed as “Real”/);
    // A title in <body>, before the real one in a later place, is the one read.
    const early = judge(page('<title>Real</title>').replace('<main>', '<title>Forged</title><main>'), {
      signedHtml: page('<title>Real</title>'),
    });
    expect(early.codes).toEqual(['valid']);
  });
});

describe('judgePage: page.base', () => {
  it('no base recorded: valid while the page’s base URL is its own address', () => {
    expect(judge(page('')).codes).toEqual(['valid']);
    // Equal to its address: relative, absolute, `index.html` and empty forms.
    for (const href of ['', './', URL_, `${URL_}index.html`, 'https://example.com:443/blog/x/'])
      expect(judge(page(`<base href="${href}">`)).codes).toEqual(['valid']);
    // A target-only <base>, a data: or javascript: href set no base URL.
    for (const head of ['<base target="_top">', '<base href="data:,x">', '<base href="javascript:void 0">'])
      expect(judge(page(head)).codes).toEqual(['valid']);
  });

  it('no base recorded: another origin, or another path on the same origin, is invalid, saying where links go', () => {
    const other = judge(page('<base href="https://evil.example/">'));
    expect(other.codes).toEqual(['invalid', 'page.base']);
    expect(other.problems[0]?.message).toBe(
      'the page’s relative links and forms now go to `https://evil.example/` (its `<base href="https://evil.example/">`), but it was signed with them resolving against `https://example.com/blog/x/`',
    );
    expect(judge(page('<base href="/other/">')).codes).toEqual(['invalid', 'page.base']);
    expect(judge(page('<base href="../">')).codes).toEqual(['invalid', 'page.base']);
    // In <body>, after the signed element: still the document's base URL.
    expect(judge(`${page('')}<base href="/other/">`).codes).toEqual(['invalid', 'page.base']);
  });

  it('a base recorded at signing: valid while the page’s base URL is that one; another, or none, is invalid', () => {
    const base = 'https://example.com/';
    const signedHtml = page('<base href="/">');
    expect(judge(signedHtml, { base }).codes).toEqual(['valid']);
    expect(judge(page('<base href="https://example.com/">'), { base, signedHtml }).codes).toEqual(['valid']);
    expect(judge(page('<base href="/other/">'), { base, signedHtml }).codes).toEqual([
      'invalid',
      'page.base',
    ]);
    const removed = judge(page(''), { base, signedHtml });
    expect(removed.codes).toEqual(['invalid', 'page.base']);
    expect(removed.problems[0]?.message).toBe(
      'the page’s relative links and forms now resolve against the page’s own address `https://example.com/blog/x/`, but it was signed with them resolving against `https://example.com/`',
    );
  });

  it('without the page’s address (a directory without --site), the base resolves against the event’s url', () => {
    const unchecked = (html: string, base?: string) =>
      judge(html, { address: undefined, signedHtml: page('<base href="/">'), ...(base ? { base } : {}) })
        .codes;
    expect(unchecked(page('<base href="/">'), 'https://example.com/')).toEqual([
      'valid',
      'address.unchecked',
    ]);
    expect(unchecked(page('<base href="/x/">'), 'https://example.com/')).toEqual([
      'invalid',
      'page.base',
      'address.unchecked',
    ]);
    // An old event (no base tag) of a page without <base> stays valid.
    expect(judge(page(''), { address: undefined }).codes).toEqual(['valid', 'address.unchecked']);
  });

  it('at a mirror, the recorded base holds as signed or with the mirror’s origin; the mirror’s own address without one', () => {
    const fallbacks = ['https://mirror.example/blog/x/'];
    const at = { address: 'https://mirror.example/blog/x/', fallbacks };
    const signedHtml = page('<base href="/">');
    const base = 'https://example.com/';
    expect(judge(signedHtml, { ...at, base }).codes).toEqual(['valid']);
    expect(judge(page(`<base href="${base}">`), { ...at, base, signedHtml }).codes).toEqual(['valid']);
    expect(judge(page('<base href="https://evil.example/">'), { ...at, base, signedHtml }).codes).toEqual([
      'invalid',
      'page.base',
    ]);
    expect(judge(page(''), at).codes).toEqual(['valid']);
    expect(judge(page('<base href="/">'), at).codes).toEqual(['invalid', 'page.base']);
  });
});
