import { describe, expect, it } from 'vitest';
import { analyzePage, applySignatureBlock, hashPage, readSignatureBlock } from '../src/index.js';

// Seeded, deterministic page shapes assembled from the pieces that decide where <head> ends: explicit or
// missing html/head/body tags, head content that is closed explicitly or implicitly (noscript, template,
// title, style), whitespace, comments, stray text, elements that belong to head appearing after </head>.
// Since issue 34 also what comes before the first body node in source order but not in tree order:
// foster-parented table text, ignored <frame>, </body>, NUL. For each: the block lands in <head>, <main>
// hashes the same in the signed page, signing twice = once, and the parse proves the place (headPhase).

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const BEFORE_HEAD = [
  '',
  '<!doctype html>',
  '<!DOCTYPE html>\n',
  '<!-- top -->',
  '\ufeff<!doctype html>',
  ' \n',
];
const HTML_OPEN = ['', '<html>', '<html lang="en">\n', '<HTML>'];
const HEAD_OPEN = ['', '<head>', '<head>\n  ', '<HEAD >'];
const HEAD_PIECES = [
  '<meta charset="utf-8">',
  '<title>T &amp; t</title>',
  '\n  ',
  '<!-- c -->',
  '<link rel="stylesheet" href="/a.css">',
  '<style>p > a { color: red }</style>',
  '<script>var x = "</head><body>";</script>',
  '<noscript><link rel="x"></noscript>',
  '<noscript><p>no js</p></noscript>',
  '<template><p>t</p></template>',
  '<template><p>unclosed',
  '<base href="/">',
  '<meta name="description" content="d">',
];
const HEAD_CLOSE = ['', '</head>', '</head>\n', '</HEAD>'];
const BETWEEN = [
  '',
  '\n',
  '<!-- between -->',
  '<link rel="late">',
  'stray text',
  '<meta name="late">',
  '<table>fostered<tr><td>cell</td></tr></table>',
  '<table><b>fostered</b><tr><td>cell</td></tr></table>',
  '<frame>',
  '</body>',
  '\0',
  '</p>',
];
const BODY_OPEN = ['', '<body>', '<body class="x">\n', '<BODY>'];
const MAIN = [
  '<main><p>content</p></main>',
  '<header>h</header><main>m &nbsp; <b>x</main>',
  '<p>a</p><main>z</main>',
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

function makePage(seed: number): string {
  const next = random(seed);
  const pieces = Array.from({ length: Math.floor(next() * 5) }, () => pick(next, HEAD_PIECES)).join('');
  return [
    pick(next, BEFORE_HEAD),
    pick(next, HTML_OPEN),
    pick(next, HEAD_OPEN),
    pieces,
    pick(next, HEAD_CLOSE),
    pick(next, BETWEEN),
    pick(next, BODY_OPEN),
    pick(next, MAIN),
    next() < 0.5 ? '\n</body></html>\n' : '',
  ].join('');
}

const EVENT_ID = 'f'.repeat(64);
const BLOCK = [
  '<!-- siegel-page/1: signed by Siegel; verify: sha256 of main.innerHTML -->',
  `<meta name="nostr:event" content="${EVENT_ID}">`,
  '<!-- /siegel-page -->',
].join('\n');

describe('block placement over 400 generated page shapes', () => {
  it('always lands in <head>, keeps the hash and every other byte, and is idempotent', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const html = makePage(seed);
      const context = `seed ${seed}: ${JSON.stringify(html)}`;
      const analysis = analyzePage(html);
      expect(analysis.existingBlock, context).toBeUndefined();
      const signed = applySignatureBlock(html, analysis, BLOCK);
      expect(
        signed.slice(0, analysis.insertAt) + signed.slice(analysis.insertAt + BLOCK.length + 1),
        context,
      ).toBe(html);
      expect(readSignatureBlock(signed)?.eventId, context).toBe(EVENT_ID);
      expect(hashPage(signed), context).toBe(analysis.hash);
      const again = analyzePage(signed);
      expect(again.existingBlock, context).toEqual({
        start: analysis.insertAt,
        end: analysis.insertAt + BLOCK.length,
      });
      expect(applySignatureBlock(signed, again, BLOCK), context).toBe(signed);
      // Proven by the parse, unless <main> is inside an unclosed <template> (then it is read back).
      expect(analysis.splicesSafely, context).toBe(!html.includes('<template><p>unclosed'));
    }
  }, 30_000); // 800 parses: about 1 s alone, several times that while the whole suite runs on 2 cores
});
