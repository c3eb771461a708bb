// Issue 23, item 1: the inputs at the edges of today's standard where parse5 8.1 lagged — `select` as a scope
// boundary, CDATA in foreign content by "adjusted current node not in the HTML namespace", `template` as a
// table-scope boundary — the minimal inputs and variants generated around them; issue 34: what a
// `<template>` drops in table modes, and the shapes Chromium or Firefox read otherwise than the standard. One
// home for the tables, read by the browser comparisons (test/page-hash/parser-edges-chromium.test.ts,
// …-firefox.test.ts).

/** The inputs, each as the content of `<main>`. */
export const MINIMAL = [
  '<p>Size: <select><option>M</option></p><p>Batch 42 is recalled.</p>',
  '<div><select><option>A</option></div><p>After</p>',
  '<p>x <select><table><tr><td>t</td></tr></table></select>y',
  '<math><mi><![CDATA[z]]></mi></math>',
  '<math><mo><![CDATA[z]]></mo><annotation-xml><![CDATA[q]]></annotation-xml></math>',
  '<svg><foreignObject><![CDATA[f]]></foreignObject><desc><![CDATA[d]]></desc></svg>',
  '<table><template><colgroup><table><tr><td>x</td></tr></table></template></table>',
  '<template><tr>x<small></tbody><img>y</template>',
];

/** Containers a `<select>` opens in, with the end tag that would close them (or not). */
const CONTAINERS = [
  'p',
  'div',
  'li',
  'dd',
  'h2',
  'button',
  'b',
  'a',
  'span',
  'td',
  'caption',
  'template',
  'figure',
];
const SELECT_BODIES = [
  '<option>M</option>',
  '<option>M',
  '<optgroup><option>M',
  '<button>B</button><option>M',
];
const AFTER = [
  '<p>Recall</p>',
  '<hr><input>after',
  '<h1>Head</h1><li>item',
  '<table><tr><td>c</table>',
  'text',
];

function selectVariants(): string[] {
  const out: string[] = [];
  for (const outer of CONTAINERS)
    for (const body of SELECT_BODIES)
      for (const closer of [outer, 'main', 'body', 'select'])
        for (const after of AFTER) {
          const open =
            outer === 'td' ? '<table><tr><td>' : outer === 'caption' ? '<table><caption>' : `<${outer}>`;
          const list = outer === 'li' ? '<ul>' : outer === 'dd' ? '<dl>' : '';
          out.push(`${list}${open}x <select>${body}</${closer}>${after}`);
        }
  return out;
}

const CDATA_HOSTS = [
  ['<math>', '</math>'],
  ['<math><mi>', '</mi></math>'],
  ['<math><mo>', '</mo></math>'],
  ['<math><mn>', '</mn></math>'],
  ['<math><ms>', '</ms></math>'],
  ['<math><mtext>', '</mtext></math>'],
  ['<math><annotation-xml>', '</annotation-xml></math>'],
  ['<math><annotation-xml encoding="text/html">', '</annotation-xml></math>'],
  ['<svg>', '</svg>'],
  ['<svg><foreignObject>', '</foreignObject></svg>'],
  ['<svg><desc>', '</desc></svg>'],
  ['<svg><title>', '</title></svg>'],
  ['<svg><foreignObject><p>', '</p></foreignObject></svg>'],
  ['<svg><g>', '</g></svg>'],
  ['<p>', '</p>'],
];
const CDATA_BODIES = [
  '<![CDATA[z]]>',
  '<![CDATA[a<b>c</b>]]>',
  '<![CDATA[]]>',
  '<![cdata[x]]>',
  '<![CDATA[x',
];

function cdataVariants(): string[] {
  return CDATA_HOSTS.flatMap(([open, close]) => CDATA_BODIES.map((body) => `${open}${body}${close}after`));
}

const TEMPLATE_OPENERS = [
  '<table><template>',
  '<template>',
  '<table><tbody><template>',
  '<table><tr><template>',
];
const TEMPLATE_FIRST = ['<colgroup>', '<col>', '<caption>', '<tbody>', '<tr>', '<td>', 'x'];
const TEMPLATE_THEN = ['<table>', '</tbody>', '</tr>', '</table>', '</thead>', '<small>x', 'x<small>'];
const TEMPLATE_LAST = ['<img>y', '<tr><td>z', '</template>q'];

function templateVariants(): string[] {
  const out: string[] = [];
  for (const open of TEMPLATE_OPENERS)
    for (const first of TEMPLATE_FIRST)
      for (const then of TEMPLATE_THEN)
        for (const last of TEMPLATE_LAST) out.push(`${open}${first}${then}${last}</template>`);
  return out;
}

// Issue 34: start tags a `<template>` ignores "in column group" (after `<col>`, the template current) and "in
// table body" (after `<tbody>`, or a closed `<tr>`): both browsers drop them with nothing kept, and they are
// signed.
const DROPPING_OPENERS = ['<template>', '<div><template>', '<table><template>'];
const DROPPING_MODES = ['<col>', '<col> ', '<tbody>', '<tr></tr>', '<thead><tr></tr>'];
const DROPPED = [
  '<div>x</div>',
  '<table>x</table>',
  '<table><tr><td>a</table>b',
  '<p>p',
  '<img src=y>',
  '<a href=u>l</a>',
  '<caption>c',
  '<col>',
];

function droppedInTemplate(): string[] {
  const out: string[] = [];
  for (const open of DROPPING_OPENERS)
    for (const mode of DROPPING_MODES)
      for (const dropped of DROPPED) out.push(`${open}${mode}${dropped}</template>q`);
  return out;
}

/** Issue 34: every page in which a template drops tags in those two modes, each signed (main's content). */
export const TEMPLATE_DROPPED: readonly string[] = droppedInTemplate();

/**
 * Issue 34: `<template>` markup Chromium reads otherwise than the standard, each as the content of `<main>`:
 * refused by the signer (page/browser-departures.ts), read by Firefox as the standard (and Siegel) has it.
 * - the template read "in body" after a `<title>`, `<base>`, `<basefont>`, `<bgsound>` or `<noframes>` as its
 *   first tag (Chromium ignores the table tags after it, and keeps a `<table>` the column-group mode drops);
 * - a `<form>` in a table mode, which the standard ignores in a template and Chromium keeps as `<form></form>`;
 * - `</form>` with a special element open in the form, which Chromium ignores in a template.
 */
export const CHROMIUM_TEMPLATE_DEPARTURES: readonly string[] = [
  ...['<title>t</title>', '<base>', '<basefont>', '<bgsound>', '<noframes>n</noframes>'].flatMap((head) =>
    [
      '<col><table>x</table>',
      '<col><div>x</div>',
      '<tr><td>x',
      '<caption>c',
      '<tbody><table>y',
      '</p>x',
      '</br>x',
    ].map((rest) => `<template>${head}${rest}</template>q`),
  ),
  ...['<caption></caption>', '<colgroup></colgroup>', '<tbody>', '<tr>', '<tr></tr>', '<td></td>'].map(
    (table) => `<template>${table}<form>x</template>q`,
  ),
  ...['<dl>', '<div>', '<p>', '<ul><li>', '<dl><dd>', '<section><span>', '<button>'].map(
    (inner) => `<template><form>${inner}</form>x</template>q`,
  ),
];

/**
 * Issue 34: misnested tags whose handling crosses an open `<dialog>` or `<search>`, as the content of `<main>`:
 * Firefox counts both as special elements and builds another tree; Chromium reads them as the standard does
 * for `<dialog>` (and as we do for `<search>`). The signer refuses every one (firefox-differences.ts).
 */
export const FIREFOX_SPECIAL_CROSSINGS: readonly string[] = ['<dialog>', '<dialog open>', '<search>'].flatMap(
  (open) => {
    const close = open.startsWith('<dialog') ? '</dialog>' : '</search>';
    return [
      `<em>${open}a</em>x${close}y`,
      `<a href=u>${open}a</a>x${close}y`,
      `<a href=u>${open}x<a href=v>y</a>${close}z`, // a second <a> runs the adoption agency too
      `<b><p>${open}a</b>x${close}y`,
      `<span>${open}a</span>x${close}y`,
      `<foo>${open}a</foo>x${close}y`,
      `<ul><li>${open}a<li>b${close}</ul>`,
      `<dl><dd>${open}a<dt>b${close}</dl>`,
    ];
  },
);

/** A page whose `<main>` holds `content`, with something after it for a missing end tag to swallow. */
export const pageOf = (content: string) =>
  `<!doctype html><title>t</title><main>${content}</main><footer>f</footer>`;

/** Every page: the minimal inputs first (in order), then the generated variants. */
export const PARSER_EDGE_CASES: readonly string[] = [
  ...MINIMAL,
  ...selectVariants(),
  ...cdataVariants(),
  ...templateVariants(),
  ...TEMPLATE_DROPPED,
  ...FIREFOX_SPECIAL_CROSSINGS,
].map(pageOf);
