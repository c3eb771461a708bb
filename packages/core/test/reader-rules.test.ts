// Issue 35, items 4 and 5, in the rule book: where the reader came from (a verify page's referrer) and
// a browser's reading against a plain client's (cloaking). The browsers and the CLI run them in
// test/verify-page/referrer-chromium.test.ts and test/site/cloaking-cli.test.ts.
import { finalizeEvent } from 'nostr-tools/pure';
import { describe, expect, it } from 'vitest';
import { analyzePage, createPageEvent, type NostrEvent } from '../src/index.js';
import { navigationHeaders } from '../src/net/navigation-headers.js';
import { compareReferrer } from '../src/verify/page-address.js';
import { judgePage } from '../src/verify/rules.js';

const KEY = Uint8Array.from(Buffer.from('6'.repeat(64), 'hex'));
const HTML = '<!doctype html><title>T</title><main><p>Signed words</p></main>';
const FORGED = '<!doctype html><title>T</title><main><p>Forged words</p></main>';
const URL_ = 'https://example.com/blog/x/';
const MIRROR = 'https://mirror.example/blog/x/';

function signed(): NostrEvent {
  const hash = analyzePage(HTML).hash as string;
  const template = createPageEvent({ hash, url: URL_, title: 'T', createdAt: 1_767_225_600 });
  return finalizeEvent({ ...template, tags: [...template.tags, ['fallback', MIRROR]] }, KEY);
}

function judge(extra: Partial<Parameters<typeof judgePage>[0]>) {
  const event = signed();
  const result = judgePage({
    readPage: (spec) => analyzePage(HTML, { spec }),
    block: { eventId: event.id, pubkey: event.pubkey },
    event: { found: event },
    address: URL_,
    ...extra,
  });
  return { codes: [result.verdict, ...result.problems.map((problem) => problem.code)], result };
}

describe('the referrer (a verify page: where the reader came from)', () => {
  it('compares a full URL as an address, an origin alone by origin, and nothing with no referrer', () => {
    const checked = [URL_, MIRROR];
    const table: Array<[string, 'none' | 'same' | 'other']> = [
      ['', 'none'],
      ['not a url', 'none'],
      ['about:blank', 'none'],
      [URL_, 'same'],
      ['https://example.com/blog/x/index.html?from=nav', 'same'],
      [MIRROR, 'same'],
      ['https://example.com/', 'same'], // only an origin: what a link from another origin sends by default
      ['https://mirror.example/', 'same'],
      ['https://example.com/blog/y/', 'other'], // another page of the same site
      ['https://evil.example/', 'other'],
      ['https://evil.example/blog/x/', 'other'],
      ['http://example.com/', 'other'],
      ['https://example.com/?page=x', 'other'], // a query: a full URL, not an origin
    ];
    expect(table.map(([referrer]) => [referrer, compareReferrer(referrer, checked)])).toEqual(table);
  });

  it('warns `referrer.other_page` beside the verdict, names both pages, and leaves the verdict as it is', () => {
    const other = judge({ referrer: 'https://evil.example/copy/' });
    expect(other.codes).toEqual(['valid', 'referrer.other_page']);
    expect(other.result.referrer).toBe('other');
    expect(other.result.problems[0]?.message).toContain('`https://evil.example/copy/`');
    expect(other.result.problems[0]?.message).toContain(`\`${URL_}\``);
    expect(other.result.problems[0]?.severity).toBe('warning');
    // An invalid verdict keeps its errors first, the warning after.
    expect(judge({ referrer: 'https://other.example/', address: 'https://evil.example/x/' }).codes).toEqual([
      'invalid',
      'event.url',
      'referrer.other_page',
    ]);
    for (const [referrer, word] of [
      [URL_, 'same'],
      [MIRROR, 'same'],
      ['', 'none'],
    ] as const) {
      const { codes, result } = judge({ referrer });
      expect(codes, referrer).toEqual(['valid']);
      expect(result.referrer, referrer).toBe(word);
    }
    // No referrer given (the CLI): not compared at all.
    expect(judge({}).result.referrer).toBeUndefined();
  });
});

describe('cloaking (siegel verify <url> --check-cloaking)', () => {
  it('reports `page.cloaked` with both hashes when a plain client reads another element, or none', () => {
    const browser = analyzePage(HTML).hash as string;
    const plainForged = analyzePage(FORGED).hash as string;
    const same = judge({ readPlainPage: (spec) => analyzePage(HTML, { spec }) });
    expect(same.codes).toEqual(['valid']);
    const differs = judge({ readPlainPage: (spec) => analyzePage(FORGED, { spec }) });
    expect(differs.codes).toEqual(['invalid', 'page.cloaked']);
    expect(differs.result.problems[0]?.message).toContain(`\`${browser}\``);
    expect(differs.result.problems[0]?.message).toContain(`\`${plainForged}\``);
    const none = judge({ readPlainPage: (spec) => analyzePage('<title>T</title><p>x', { spec }) });
    expect(none.codes).toEqual(['invalid', 'page.cloaked']);
    expect(none.result.problems[0]?.message).toContain('a plain client no `main`');
  });

  it('reports `page.cloaked` when the element is the same but a plain client gets another title or base', () => {
    const retitled = judge({
      readPlainPage: (spec) =>
        analyzePage(HTML.replace('<title>T</title>', '<title>Plain</title>'), { spec }),
    });
    expect(retitled.codes).toEqual(['invalid', 'page.cloaked']);
    expect(retitled.result.problems[0]?.message).toContain('another title than a plain client');
    const rebased = judge({
      readPlainPage: (spec) =>
        analyzePage(HTML.replace('<title>T</title>', '<title>T</title><base href="/x/">'), { spec }),
    });
    expect(rebased.codes).toEqual(['invalid', 'page.cloaked']);
    expect(rebased.result.problems[0]?.message).toContain('`/x/`');
  });

  it('asks for a page as Chromium’s navigation does, client hints only with its User-Agent', () => {
    const headers = navigationHeaders(new URL('https://example.com/'));
    expect(headers).toMatchObject({
      'sec-fetch-dest': 'document',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'none',
      'sec-fetch-user': '?1',
      'upgrade-insecure-requests': '1',
      'sec-ch-ua-mobile': '?0',
    });
    expect(headers['user-agent']).toMatch(/^Mozilla\/5\.0 .* Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/);
    const other = navigationHeaders(new URL('https://example.com/'), 'Mozilla/5.0 Firefox/150.0');
    expect(other['user-agent']).toBe('Mozilla/5.0 Firefox/150.0');
    expect(Object.keys(other).filter((name) => name.startsWith('sec-ch-'))).toEqual([]);
    // Chromium sends no client hints to a plain-http origin that is not this machine.
    expect(navigationHeaders(new URL('http://example.com/'))['sec-ch-ua']).toBeUndefined();
    expect(navigationHeaders(new URL('http://127.0.0.1:8080/'))['sec-ch-ua']).toBeDefined();
  });
});

describe('the title (page.title)', () => {
  it('quotes a long title by its first 200 characters, not whole', () => {
    const long = 'x'.repeat(100_000);
    const retitled = judge({
      readPage: (spec) => analyzePage(HTML.replace('<title>T</title>', `<title>${long}</title>`), { spec }),
    });
    expect(retitled.codes).toEqual(['invalid', 'page.title']);
    const message = retitled.result.problems[0]?.message ?? '';
    expect(message).toContain(`“${'x'.repeat(200)}…”`);
    expect(message.length).toBeLessThan(400);
  });
});
