// Issue 23, acceptance 2 (the hand table): every wrapper, attribute and inline style of the issue that keeps a
// browser with scripts on from showing the signed element. Each page's signed element is `<main…>x</main>`;
// every verifier must refuse or reject each with the one code `page.not_shown`. Used by
// packages/core/test/page-not-shown.test.ts (the rule book) and
// test/verify-page/not-shown-verifiers-chromium.test.ts (siegel sign, siegel verify, the verify page).

/** A whole page: `body` (from `<body>` on, its signed element `<main…>x</main>`) and `<html>`'s attributes. */
export const notShownPage = (body: string, html = '') =>
  `<!doctype html><html${html}><head><title>t</title></head>${body}</html>`;

export const NOT_SHOWN: Array<[string, string]> = [
  ['closed <details>', notShownPage('<body><details><summary>s</summary><main>x</main></details>')],
  ['<dialog> without open', notShownPage('<body><dialog><main>x</main></dialog>')],
  ['<noscript> in body (text with scripts on)', notShownPage('<body><noscript><main>x</main></noscript>')],
  ['<select>', notShownPage('<body><select><main>x</main></select>')],
  [
    'shadow host without a slot',
    notShownPage('<body><div><template shadowrootmode="open">s</template><main>x</main></div>'),
  ],
  [
    'shadow host, slot of another name',
    notShownPage(
      '<body><div><template shadowrootmode="OPEN"><slot name="a"></slot></template><main>x</main></div>',
    ),
  ],
  ['<main popover>', notShownPage('<body><main popover>x</main>')],
  ['<main hidden>', notShownPage('<body><main hidden>x</main>')],
  ['<main inert>', notShownPage('<body><main inert>x</main>')],
  ['display:none on <main>', notShownPage('<body><main style="display:none">x</main>')],
  ['visibility:hidden on <body>', notShownPage('<body style="visibility:hidden"><main>x</main>')],
  [
    'content-visibility:hidden on a wrapper',
    notShownPage('<body><div style="content-visibility:hidden"><main>x</main></div>'),
  ],
  ['opacity:0 on <html>', notShownPage('<body><main>x</main>', ' style="opacity:0"')],
  [
    '!important, mixed case',
    notShownPage('<body><main style="Display: NONE !Important; display: block">x</main>'),
  ],
  ['entities in the attribute', notShownPage('<body><main style="display&colon;none">x</main>')],
  ['a CSS escape in the name', notShownPage('<body><main style="dis\\70 lay:none">x</main>')],
  [
    'zero height, hidden overflow',
    notShownPage('<body><div style="height:0;overflow:hidden"><main>x</main></div>'),
  ],
  ['transform:scale(0)', notShownPage('<body><main style="transform:scale(0)">x</main>')],
  ['clip-path', notShownPage('<body><main style="clip-path:inset(50%)">x</main>')],
  ['font-size:0', notShownPage('<body style="font-size:0"><main>x</main>')],
  ['opacity below 0.1', notShownPage('<body><main style="opacity:0.05">x</main>')],
  ['var() in display', notShownPage('<body><main style="--d:none;display:var(--d)">x</main>')],
];
