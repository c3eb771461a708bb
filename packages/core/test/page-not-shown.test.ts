// Issue 23, item 3 / acceptance 2 (the hand table): every wrapper, attribute and inline style of the issue
// that keeps a browser with scripts on from showing the signed element is refused at signing and judged by
// the one rule book as `page.not_shown` — the same code for each. The generated set runs against Chromium in
// test/page-hash/not-shown-chromium.test.ts.
import { describe, expect, it } from 'vitest';
import { analyzePage } from '../src/index.js';
import { judgePage } from '../src/verify/rules.js';

const page = (body: string, html = '') =>
  `<!doctype html><html${html}><head><title>t</title></head>${body}</html>`;

const NOT_SHOWN: Array<[string, string]> = [
  ['closed <details>', page('<body><details><summary>s</summary><main>x</main></details>')],
  ['<dialog> without open', page('<body><dialog><main>x</main></dialog>')],
  ['<noscript> in body (text with scripts on)', page('<body><noscript><main>x</main></noscript>')],
  ['<select>', page('<body><select><main>x</main></select>')],
  [
    'shadow host without a slot',
    page('<body><div><template shadowrootmode="open">s</template><main>x</main></div>'),
  ],
  [
    'shadow host, slot of another name',
    page('<body><div><template shadowrootmode="OPEN"><slot name="a"></slot></template><main>x</main></div>'),
  ],
  ['<main popover>', page('<body><main popover>x</main>')],
  ['<main hidden>', page('<body><main hidden>x</main>')],
  ['<main inert>', page('<body><main inert>x</main>')],
  ['display:none on <main>', page('<body><main style="display:none">x</main>')],
  ['visibility:hidden on <body>', page('<body style="visibility:hidden"><main>x</main>')],
  [
    'content-visibility:hidden on a wrapper',
    page('<body><div style="content-visibility:hidden"><main>x</main></div>'),
  ],
  ['opacity:0 on <html>', page('<body><main>x</main>', ' style="opacity:0"')],
  ['!important, mixed case', page('<body><main style="Display: NONE !Important; display: block">x</main>')],
  ['entities in the attribute', page('<body><main style="display&colon;none">x</main>')],
  ['a CSS escape in the name', page('<body><main style="dis\\70 lay:none">x</main>')],
  ['zero height, hidden overflow', page('<body><div style="height:0;overflow:hidden"><main>x</main></div>')],
  ['transform:scale(0)', page('<body><main style="transform:scale(0)">x</main>')],
  ['clip-path', page('<body><main style="clip-path:inset(50%)">x</main>')],
  ['font-size:0', page('<body style="font-size:0"><main>x</main>')],
  ['opacity below 0.1', page('<body><main style="opacity:0.05">x</main>')],
  ['var() in display', page('<body><main style="--d:none;display:var(--d)">x</main>')],
];

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
