import { npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import {
  createPageEvent,
  readVerifyScript,
  renderVerifyPage,
  SiegelError,
  VERIFY_SCRIPT_NAME,
} from '../src/index.js';

const secretKey = generateSecretKey();
const EVIL = 'Evil "><script>alert(1)</script> --> </script><!-- & \u2028';

function signedEvent(title: string) {
  return finalizeEvent(
    createPageEvent({
      hash: 'cd'.repeat(32),
      url: 'https://example.com/a/',
      title,
      createdAt: 1_767_225_600,
    }),
    secretKey,
  );
}

/** All elements of a parsed document, in tree order. */
function elements(html: string): Array<{ tagName: string; attrs: Array<{ name: string; value: string }> }> {
  const found: Array<{ tagName: string; attrs: Array<{ name: string; value: string }> }> = [];
  const walk = (node: unknown) => {
    const current = node as { tagName?: string; attrs?: []; childNodes?: unknown[] };
    if (current.tagName) found.push(current as never);
    for (const child of current.childNodes ?? []) walk(child);
  };
  walk(parse(html));
  return found;
}

describe('renderVerifyPage', () => {
  const event = signedEvent('Seals');
  const html = renderVerifyPage({
    event,
    pageUrl: 'https://example.com/a/',
    pagePath: '/a/',
    scriptPath: `/verify/${VERIFY_SCRIPT_NAME}`,
    selector: 'main',
  });

  it('shows the event, who signed, when and the page, and embeds the event as JSON', () => {
    expect(html).toContain(npubEncode(getPublicKey(secretKey)));
    expect(html).toContain('<time datetime="2026-01-01T00:00:00.000Z">2026-01-01 00:00:00 UTC</time>');
    expect(html).toContain('<a href="https://example.com/a/">Seals</a>');
    expect(html).toContain(event.id);
    expect(html).toContain(`href="../${event.id}.json"`);
    const json = /<script type="application\/json" id="siegel-event">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(event)));
  });

  it('has a hidden "What was signed" section with an empty-sandbox frame and a text view', () => {
    const all = elements(html);
    const section = all.find((element) =>
      element.attrs.some((a) => a.name === 'id' && a.value === 'siegel-content'),
    );
    expect(section?.tagName).toBe('section');
    expect(section?.attrs.find((a) => a.name === 'hidden')).toEqual({ name: 'hidden', value: '' });
    const frame = all.find((element) => element.tagName === 'iframe');
    expect(frame?.attrs.find((a) => a.name === 'id')?.value).toBe('siegel-content-frame');
    expect(frame?.attrs.find((a) => a.name === 'sandbox')).toEqual({ name: 'sandbox', value: '' });
    expect(frame?.attrs.some((a) => a.name === 'src' || a.name === 'srcdoc')).toBe(false);
    expect(html).toContain('<pre id="siegel-content-text"></pre>');
    expect(html).toMatch(/<h2>What was signed<\/h2>/);
    // A link clicked in the frame must not load anything into it.
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="frame-src 'none'">`);
  });

  it('links page and script relative to verify/{id}/ so a site under a sub-path works', () => {
    expect(html).toContain('data-page="../../a/"');
    expect(html).toContain(`<script src="../../verify/${VERIFY_SCRIPT_NAME}" defer></script>`);
    const absolute = renderVerifyPage({
      event,
      pageUrl: 'https://example.com/a/',
      pagePath: 'https://example.com/a/',
      scriptPath: `../${VERIFY_SCRIPT_NAME}`,
      selector: 'article',
    });
    expect(absolute).toContain('data-page="https://example.com/a/"');
    expect(absolute).toContain(`<script src="../${VERIFY_SCRIPT_NAME}" defer></script>`);
    expect(absolute).toContain('data-selector="article"');
  });

  it('strips the site base path revealed by scriptPath, so a sub-path site works from any base', () => {
    const based = renderVerifyPage({
      event,
      pageUrl: 'https://example.com/docs/a/',
      pagePath: '/docs/a/',
      scriptPath: `/docs/verify/${VERIFY_SCRIPT_NAME}`,
      selector: 'main',
    });
    expect(based).toContain('data-page="../../a/"');
    expect(based).toContain(`<script src="../../verify/${VERIFY_SCRIPT_NAME}" defer></script>`);
    const home = renderVerifyPage({
      event,
      pageUrl: 'https://example.com/docs/',
      pagePath: '/docs',
      scriptPath: `/docs/verify/${VERIFY_SCRIPT_NAME}`,
    });
    expect(home).toContain('data-page="../../"');
  });

  it('escapes a hostile title, URL and selector: one script element runs, the JSON stays intact', () => {
    const evil = signedEvent(EVIL);
    const page = renderVerifyPage({
      event: evil,
      pageUrl: `https://example.com/"><script>alert(2)</script>`,
      pagePath: '/"><script>alert(3)</script>',
      scriptPath: `/verify/${VERIFY_SCRIPT_NAME}`,
      selector: 'main"><script>alert(4)</script>',
    });
    const scripts = elements(page).filter((element) => element.tagName === 'script');
    expect(scripts.map((script) => script.attrs.map((a) => `${a.name}=${a.value}`).join(' '))).toEqual([
      'type=application/json id=siegel-event',
      `src=../../verify/${VERIFY_SCRIPT_NAME} defer=`,
    ]);
    expect(page).not.toContain('<script>alert');
    const json = /<script type="application\/json" id="siegel-event">(.*?)<\/script>/s.exec(page)?.[1] ?? '';
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(evil)));
    expect(page).toContain('<title>Signature check: Evil &quot;&gt;&lt;script&gt;');
  });

  it('rejects an event with an invalid pubkey, quoting the event id', () => {
    expect(() =>
      renderVerifyPage({
        event: { ...event, pubkey: 'zz' },
        pageUrl: 'x',
        pagePath: '/',
        scriptPath: '/s.js',
      }),
    ).toThrow(SiegelError);
  });
});

describe('readVerifyScript', () => {
  it('returns the one bundled browser script (built with the package)', async () => {
    const script = await readVerifyScript();
    expect(script.length).toBeGreaterThan(50_000);
    // 309 000 with the site manifest's check (issue 36: its format, the page's loads, the gathering).
    expect(script.length).toBeLessThan(330_000);
    expect(script).toContain('siegel-status');
    // A classic script (loaded with `defer`, no module syntax at top level).
    expect(script).not.toMatch(/^\s*(import|export)\s/m);
  });
});
