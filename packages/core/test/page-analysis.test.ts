import { createHash } from 'node:crypto';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { analyzePage, applySignatureBlock, hashPage, readPageContent, SiegelError } from '../src/index.js';

type Element = DefaultTreeAdapterTypes.Element;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const BLOCK = [
  '<!-- siegel-page/1: signed by Siegel; verify: sha256 of main.innerHTML -->',
  '<meta name="nostr:event" content="e">',
  '<!-- /siegel-page -->',
].join('\n');

/** The children of the parsed `<head>` of `html` (as a browser would build them). */
function headChildren(html: string): DefaultTreeAdapterTypes.ChildNode[] {
  const root = parse(html).childNodes.find((node) => 'tagName' in node && node.tagName === 'html') as Element;
  const head = root.childNodes.find((node) => 'tagName' in node && node.tagName === 'head') as Element;
  return head.childNodes;
}

function blockMetaInHead(html: string): boolean {
  return headChildren(html).some(
    (node) =>
      'tagName' in node && node.tagName === 'meta' && node.attrs.some((a) => a.value === 'nostr:event'),
  );
}

describe('hashPage', () => {
  it('hashes the UTF-8 innerHTML of <main> as a browser serializes it', () => {
    const html = '<!doctype html><main><p class=a>Café &amp; b&nbsp;c <br/>x</p></main>';
    expect(readPageContent(html)).toBe('<p class="a">Café &amp; b&nbsp;c <br>x</p>');
    expect(hashPage(html)).toBe(sha256('<p class="a">Café &amp; b&nbsp;c <br>x</p>'));
  });

  it('hashes a large element part by part to the hash of its whole innerHTML (no copy of it in memory)', () => {
    // Over 64 Ki characters, with entities, line ends, attributes and text that the tokenizer cuts into runs.
    const body = Array.from(
      { length: 3_000 },
      (_, i) => `<p class="p${i}" title="a &amp; b">Grüße ${i} &lt;x&gt;\r\nnext&nbsp;line <b>bold</b></p>`,
    ).join('\n');
    const html = `<!doctype html><title>Big</title><main>${body}</main>`;
    const content = readPageContent(html) as string;
    expect(content.length).toBeGreaterThan(3 * 65_536);
    expect(content).toContain(
      '<p class="p2999" title="a &amp; b">Grüße 2999 &lt;x&gt;\nnext&nbsp;line <b>bold</b></p>',
    );
    expect(hashPage(html)).toBe(sha256(content));
    expect(analyzePage(html).hash).toBe(sha256(content));
  });

  it('uses the first match in tree order (the outer of nested <main>s)', () => {
    expect(readPageContent('<main>a<main>b</main></main><main>c</main>')).toBe('a<main>b</main>');
  });

  it('supports tag, #id, .class, [attr], child and descendant selectors and lists', () => {
    const html =
      '<body><div id="x" class="c d" data-k="v 1"><article><p>one</p></article></div><section><p>two</p></section></body>';
    expect(readPageContent(html, '#x')).toContain('<article>');
    expect(readPageContent(html, 'div.c.d')).toContain('<article>');
    expect(readPageContent(html, '[data-k="v 1"] p')).toBe('one');
    expect(readPageContent(html, 'section > p')).toBe('two');
    expect(readPageContent(html, 'body > p')).toBeUndefined();
    expect(readPageContent(html, 'aside, section')).toBe('<p>two</p>');
    expect(readPageContent(html, 'DIV[data-k^=v]')).toContain('<article>');
  });

  it('returns undefined when nothing matches', () => {
    expect(hashPage('<!doctype html><p>no main</p>')).toBeUndefined();
    expect(analyzePage('<p>no main</p>').hash).toBeUndefined();
  });

  it('does not look inside <template> content, like querySelector', () => {
    expect(hashPage('<template><main>t</main></template>')).toBeUndefined();
  });

  it('rejects selectors it does not support, quoting them', () => {
    expect(() => hashPage('<main></main>', { selector: 'main:first-child' })).toThrow(SiegelError);
    expect(() => hashPage('<main></main>', { selector: 'main:first-child' })).toThrow(/`main:first-child`/);
    expect(() => hashPage('<main></main>', { selector: '' })).toThrow(/empty/);
    expect(() => hashPage('<main></main>', { selector: 'main >' })).toThrow(SiegelError);
  });
});

describe('analyzePage', () => {
  it('reads title (whitespace collapsed) and meta description', () => {
    const page = analyzePage(
      '<!doctype html><head><title>\n  Hello\n  world </title><meta name="Description" content=" About me "></head><main>x</main>',
    );
    expect(page.title).toBe('Hello world');
    expect(page.description).toBe('About me');
    expect(page.hash).toBe(sha256('x'));
  });

  it('takes the title as document.title does: the first HTML <title>, also outside <head>, never an SVG one', () => {
    expect(
      analyzePage('<head></head><body><svg><title>icon</title></svg><title> Late </title><main>x</main>')
        .title,
    ).toBe('Late');
    expect(analyzePage('<main><svg><title>icon</title></svg></main>').title).toBeUndefined();
  });

  it('gives undefined title/description when empty or absent', () => {
    const page = analyzePage('<title> </title><meta name=description content=""><main>x</main>');
    expect(page.title).toBeUndefined();
    expect(page.description).toBeUndefined();
  });

  it('places the block right before an explicit </head>', () => {
    const html = '<!doctype html><html><head><title>T</title></head><body><main>x</main></body></html>';
    expect(analyzePage(html).insertAt).toBe(html.indexOf('</head>'));
  });

  // Each page has its <head> (or its end) implied in a different way; the block must still land in head.
  const impliedHeads: Array<[string, string]> = [
    ['no head tags at all', '<!doctype html><meta charset="utf-8"><title>T</title>\n<main>x</main>'],
    ['no head and no head content', '<!doctype html><main>x</main>'],
    ['head closed by <body>', '<!doctype html><html><head><title>T</title>\n<body><main>x</main>'],
    ['head closed by text', '<!doctype html><head><title>T</title>  hello<main>x</main>'],
    ['<html> then <body>', '<!doctype html><html lang="en"><body><main>x</main>'],
    ['text first', '<!doctype html>hello<main>x</main>'],
    ['comments before html', '<!doctype html><!--c--><html><!--d--><main>x</main>'],
    ['unclosed noscript in head', '<!doctype html><head><noscript><p>no</p></noscript><main>x</main>'],
    ['noscript with link', '<!doctype html><head><noscript><link rel="x"></noscript></head><main>x</main>'],
    ['unclosed title at EOF', '<head><title>x'],
    ['unclosed template', '<head><template><p>t<main>x</main>'],
    ['link after </head>', '<head></head><link rel="x"><main>x</main>'],
    ['empty document', ''],
    ['only a doctype', '<!doctype html>'],
    ['only html tags', '<html></html>'],
    ['CRLF page', '<!DOCTYPE html>\r\n<html>\r\n<head>\r\n<title>T</title>\r\n<body>\r\n<main>x</main>\r\n'],
  ];
  for (const [name, html] of impliedHeads) {
    it(`puts the block into <head>, replaces it on the next run, changes nothing else: ${name}`, () => {
      const first = analyzePage(html);
      expect(first.existingBlock).toBeUndefined();
      const once = applySignatureBlock(html, first, BLOCK);
      expect(blockMetaInHead(once)).toBe(true);
      // Byte-identical outside the block: removing what was inserted gives the input back.
      expect(once.slice(0, first.insertAt) + once.slice(first.insertAt + BLOCK.length + 1)).toBe(html);
      const second = analyzePage(once);
      expect(second.existingBlock).toEqual({ start: first.insertAt, end: first.insertAt + BLOCK.length });
      expect(second.hash).toBe(first.hash);
      expect(applySignatureBlock(once, second, BLOCK)).toBe(once);
    });
  }

  it('reads a page with a leading BOM as a browser does after decoding it: BOM dropped, head intact', () => {
    const body =
      '<!doctype html><head><title>BOM</title></head><main><p>a<table><tr><td>b</td></tr></table></main>';
    const page = analyzePage(`\ufeff${body}`);
    // Without stripping, the BOM would be text before the doctype: quirks mode, <title> pushed into <body>,
    // and <table> would not close <p> — a different hash than the verify page (fetch strips the BOM) computes.
    expect(page.title).toBe('BOM');
    expect(page.hash).toBe(analyzePage(body).hash);
    expect(readPageContent(`\ufeff${body}`)).toBe(
      '<p>a</p><table><tbody><tr><td>b</td></tr></tbody></table>',
    );
    expect(page.insertAt).toBe(1 + body.indexOf('</head>'));
    const once = applySignatureBlock(`\ufeff${body}`, page, BLOCK);
    expect(once.startsWith('\ufeff<!doctype html>')).toBe(true);
    expect(analyzePage(once).existingBlock).toEqual({
      start: page.insertAt,
      end: page.insertAt + BLOCK.length,
    });
  });

  it('replaces an old block with a new one (no duplicate), keeping every other byte', () => {
    const html = '<!doctype html><head>\n  <title>T</title>\n</head>\n<main>x</main>';
    const once = applySignatureBlock(html, analyzePage(html), BLOCK);
    const other = BLOCK.replace('content="e"', 'content="f"');
    const replaced = applySignatureBlock(once, analyzePage(once), other);
    expect(replaced).toBe(once.replace(BLOCK, other));
    expect(replaced.match(/siegel-page\/1/g)).toHaveLength(1);
  });

  it('replaces a block cut short (no closing marker) by its opening comment, never adding a second', () => {
    const html = '<head><!-- siegel-page/1: old --><title>T</title></head><main>x</main>';
    const analysis = analyzePage(html);
    expect(analysis.existingBlock).toEqual({ start: 6, end: 6 + '<!-- siegel-page/1: old -->'.length });
    expect(applySignatureBlock(html, analysis, BLOCK).match(/siegel-page\/1/g)).toHaveLength(1);
  });

  it('ignores the marker text when it is not a comment (script, textarea, attribute)', () => {
    const html =
      '<head><script>var s = "<!-- siegel-page/1 --> <!-- /siegel-page -->";</script></head><main><textarea><!-- siegel-page/1 --></textarea></main>';
    expect(analyzePage(html).existingBlock).toBeUndefined();
  });

  it('reports the block a page carries', () => {
    const id = 'a'.repeat(64);
    const html = `<head><meta name="nostr:event" content="${id}"></head><main>x</main>`;
    expect(analyzePage(html).signatureBlock).toEqual({ eventId: id });
    expect(analyzePage('<main>x</main>').signatureBlock).toBeUndefined();
  });
});
