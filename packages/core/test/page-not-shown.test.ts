// Issue 23, item 3 / acceptance 2 (the hand table): every wrapper, attribute and inline style of the issue
// that keeps a browser with scripts on from showing the signed element is refused at signing and judged by
// the one rule book as `page.not_shown` — the same code for each. The generated set runs against Chromium in
// test/page-hash/not-shown-chromium.test.ts.
import { describe, expect, it } from 'vitest';
import { analyzePage } from '../src/index.js';
import { judgePage } from '../src/verify/rules.js';
import { NOT_SHOWN, notShownPage as page } from './support/not-shown-cases.js';

const SHOWN: Array<[string, string]> = [
  ['plain', page('<body><main>x</main>')],
  [
    'in the summary of a closed <details>',
    page('<body><details><summary><main>x</main></summary></details>'),
  ],
  ['open <details>', page('<body><details open><summary>s</summary><main>x</main></details>')],
  ['open <dialog>', page('<body><dialog open><main>x</main></dialog>')],
  [
    'shadow host with a default slot',
    page('<body><div><template shadowrootmode="open"><slot></slot></template><main>x</main></div>'),
  ],
  [
    'visibility set back on <main>',
    page('<body style="visibility:hidden"><main style="visibility:visible">x</main>'),
  ],
  ['hidden overridden by inline display', page('<body><main hidden style="display:block">x</main>')],
  ['display:none in a comment', page('<body><main style="/* display:none */ color:red">x</main>')],
  ['opacity:0.5', page('<body><main style="opacity:.5">x</main>')],
];

describe('not shown ⇒ not signed, not valid (page.not_shown)', () => {
  for (const [name, html] of NOT_SHOWN)
    it(`refuses: ${name}`, () => {
      const analysis = analyzePage(html);
      expect(analysis.refusal?.code).toBe('hidden');
      const judgement = judgePage({ readPage: (spec) => analyzePage(html, { spec }), block: {} });
      expect(judgement.verdict).toBe('invalid');
      expect(judgement.problems.map((problem) => problem.code)).toContain('page.not_shown');
    });

  for (const [name, html] of SHOWN)
    it(`signs: ${name}`, () => {
      expect(analyzePage(html).refusal).toBeUndefined();
    });
});

describe('what a reader with scripts on is shown is what is signed (page.ambiguous_noscript)', () => {
  const refused = [
    // html5lib tests16 #85–89: a comment in <noscript> that holds </noscript> shows its rest on the live page.
    ['a comment holding </noscript>', '<main><noscript><!--</noscript>X<noscript>--></noscript></main>'],
    ['the rest of the comment shown', '<main><noscript><!--</noscript>--></noscript></main>'],
    [
      'a second <main> when scripts run',
      '<body><noscript><!--</noscript><main>forged</main>--></noscript><main>x</main>',
    ],
  ];
  const signed = [
    [
      'markup a <noscript> in <head> moves into <body>, outside the element',
      '<head><noscript><p>in body when scripts are off</p></noscript></head><main>x</main>',
    ],
    [
      'a tracking pixel',
      '<body><noscript><img src="/p.gif"></noscript><main>x<noscript><p>No JS</p></noscript></main>',
    ],
    [
      '<noscript> in <head> with a <link>',
      '<head><noscript><link rel="stylesheet" href="/a.css"></noscript></head><main>x</main>',
    ],
  ];
  for (const [name, body] of refused)
    it(`refuses: ${name}`, () => {
      const html = `<!doctype html><title>t</title>${body}`;
      expect(analyzePage(html).refusal?.code).toBe('ambiguous-noscript');
      const judgement = judgePage({ readPage: (spec) => analyzePage(html, { spec }), block: {} });
      expect(judgement.problems.map((problem) => problem.code)).toContain('page.ambiguous_noscript');
    });
  for (const [name, body] of signed)
    it(`signs: ${name}`, () => {
      expect(analyzePage(`<!doctype html><title>t</title>${body}`).refusal).toBeUndefined();
    });
});

describe('an ignored <frameset> that Firefox shows', () => {
  it('is refused anywhere in a page without a <body> tag; after one, and an ignored <frame>, it is not', () => {
    // Firefox 153 ESR: text starting with white space does not end "frameset-ok" where <body> is implied.
    const frameset =
      '<!doctype html><title>t</title><main>\n<p>\nBatch 42</p></main><frameset><frame src="x"></frameset>';
    const refusal = analyzePage(frameset).refusal;
    expect(refusal?.code).toBe('ignored-markup');
    expect(refusal?.message).toMatch(
      /ignores the start tag <frameset> at line 3, column \d+, but Firefox may show/,
    );
    expect(
      analyzePage('<!doctype html><title>t</title><main>x<frame src="y"></main>').refusal,
    ).toBeUndefined();
    // After a <body> tag Firefox ignores it too, as the standard says: signed (spec vector 54).
    expect(analyzePage(frameset.replace('<main>', '<body><main>')).refusal).toBeUndefined();
  });
});
