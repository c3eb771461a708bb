// Issue 23, item 1: the inputs at the edges of today's standard where parse5 8.1 lagged — `select` as a scope
// boundary, CDATA in foreign content by "adjusted current node not in the HTML namespace", `template` as a
// table-scope boundary — the minimal inputs and variants generated around them. One home for the
// tables, read by the browser comparisons (test/page-hash/parser-edges-chromium.test.ts, …-firefox.test.ts).

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

/** A page whose `<main>` holds `content`, with something after it for a missing end tag to swallow. */
export const pageOf = (content: string) =>
  `<!doctype html><title>t</title><main>${content}</main><footer>f</footer>`;

/** Every page: the minimal inputs first (in order), then the generated variants. */
export const PARSER_EDGE_CASES: readonly string[] = [
  ...MINIMAL,
  ...selectVariants(),
  ...cdataVariants(),
  ...templateVariants(),
].map(pageOf);
