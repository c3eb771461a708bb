// Issue 23, item 3 / acceptance 2 (generated set): "not shown ⇒ not valid", judged against Chromium. Every
// page — wrappers × hiding attributes × inline declarations (with `!important`, mixed case, escapes,
// entities, on <html>, <body>, a wrapper or <main>) — is loaded in Chromium with scripts on and no style
// sheets (an iframe's srcdoc: a navigated document, so <noscript> is text and declarative shadow roots
// attach). The oracle: main.checkVisibility({ opacityProperty, visibilityProperty, contentVisibilityAuto })
// and a non-empty box. Every page Chromium does not show is refused (`hidden` → `page.not_shown`); every page
// it shows was signed, except where issue 23's rules were deliberately stricter than the oracle (`inert`,
// `clip-path`, `font-size: 0`, a clipping ancestor of zero size — `stricterOf`). Since issue 35 the rule is a
// set of allow-lists (page/not-shown.ts), stricter still: of the shown pages only those made of what the lists
// allow must be signed; the others are counted. test/page-hash/hidings-chromium.test.ts is the allow-lists' own
// generated set.
import { analyzePage } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';

const WRAPPERS: Array<[string, string, string]> = [
  ['none', '', ''],
  ['div', '<div>', '</div>'],
  ['section', '<section>', '</section>'],
  ['span', '<span>', '</span>'],
  ['closed details', '<details>', '</details>'],
  ['open details', '<details open><summary>s</summary>', '</details>'],
  ['details summary', '<details><summary>', '</summary></details>'],
  ['dialog', '<dialog>', '</dialog>'],
  ['open dialog', '<dialog open>', '</dialog>'],
  ['noscript', '<noscript>', '</noscript>'],
  ['select', '<select>', '</select>'],
  ['shadow host, no slot', '<div><template shadowrootmode="open"><p>shadow</p></template>', '</div>'],
  ['shadow host, default slot', '<div><template shadowrootmode="open"><slot></slot></template>', '</div>'],
  [
    'shadow host, named slot',
    '<x-card><template shadowrootmode="closed"><slot name="a"></slot></template>',
    '</x-card>',
  ],
  ['popover wrapper', '<div popover>', '</div>'],
];

const ATTRIBUTES = ['', ' hidden', ' hidden="until-found"', ' popover', ' inert', ' HIDDEN'];

const DECLARATIONS = [
  'display:none',
  'DISPLAY: NONE',
  'display:none !important',
  'display:none!IMPORTANT;display:block',
  'display:none;display:block',
  'display:block;display:none',
  'display&#58;none',
  'd\\69splay:none',
  '/* c */display:/* c */none',
  'display:block',
  'visibility:hidden',
  'Visibility: Collapse',
  'visibility:visible',
  'content-visibility:hidden',
  'opacity:0',
  'opacity:0%',
  'opacity:.0',
  'opacity:0.5',
  'opacity:1',
  'height:0;overflow:hidden',
  'width:0px;overflow:clip',
  'max-height:0;overflow-y:hidden',
  'height:0',
  'height:0;overflow:visible',
  'transform:scale(0)',
  'transform:scaleY(0)',
  'transform:translateX(1px) scale(0, 1)',
  'transform:scale(1)',
  'scale:0',
  'clip-path:inset(50%)',
  'font-size:0',
  'font:0/0 a',
  'font-size:0;line-height:1px',
  'color:red',
];
const PLACES = ['html', 'body', 'wrapper', 'main'] as const;

interface Case {
  name: string;
  html: string;
  /** Built only from what the allow-lists allow (a plain wrapper, no attribute, no style). */
  plain: boolean;
  /** Which of the deliberately stricter rules applies, if any. */
  stricter?: string;
}

function page(
  wrapper: [string, string, string],
  attrs: Partial<Record<(typeof PLACES)[number], string>>,
): string {
  const [, open, close] = wrapper;
  const wrapperOpen = attrs.wrapper ? open.replace(/^<([a-z-]+)/, `<$1${attrs.wrapper}`) : open;
  return `<!doctype html><html${attrs.html ?? ''}><head><title>t</title></head><body${attrs.body ?? ''}><p>before</p>${wrapperOpen}<main${attrs.main ?? ''}>Signed text of the page.</main>${close}<p>after</p></body></html>`;
}

/** The rules of page/not-shown.ts that are stricter than the oracle (it sees neither clipping nor glyph size). */
function stricterOf(text: string): string | undefined {
  if (/\binert\b/.test(text)) return 'inert';
  if (/clip-path/.test(text)) return 'clip-path';
  if (/font-size:0|font:0/.test(text)) return 'font-size: 0';
  if (/:0(px)?;overflow(-[xy])?:(hidden|clip)/.test(text)) return 'a clipping ancestor of zero size';
  return undefined;
}

function generate(): Case[] {
  const cases: Case[] = [];
  const add = (name: string, html: string, marks: string, plain = false) =>
    cases.push({
      name,
      html,
      plain,
      ...(stricterOf(marks) ? { stricter: stricterOf(marks) as string } : {}),
    });
  for (const wrapper of WRAPPERS)
    for (const attribute of ATTRIBUTES) {
      add(
        `${wrapper[0]} / <main${attribute}>`,
        page(wrapper, { main: attribute }),
        attribute,
        attribute === '' && ['none', 'div', 'section'].includes(wrapper[0]),
      );
      if (wrapper[1] !== '' && attribute !== '')
        add(`${wrapper[0]}${attribute} / main`, page(wrapper, { wrapper: attribute }), attribute);
    }
  for (const wrapper of WRAPPERS.slice(0, 8))
    for (const declaration of DECLARATIONS)
      for (const place of PLACES) {
        if (place === 'wrapper' && wrapper[1] === '') continue;
        const style = ` style="${declaration}"`;
        add(
          `${wrapper[0]} / ${place} style="${declaration}"`,
          page(wrapper, { [place]: style }),
          declaration,
        );
      }
  // A hiding attribute against inline display, and visibility set back on <main>.
  for (const attribute of [' hidden', ' popover', ' hidden="until-found"'])
    for (const declaration of ['display:block', 'display:none', 'content-visibility:visible', 'opacity:1'])
      add(
        `<main${attribute} style="${declaration}">`,
        page(WRAPPERS[0] as never, { main: `${attribute} style="${declaration}"` }),
        '',
      );
  add(
    'visibility back on main',
    page(WRAPPERS[1] as never, { body: ' style="visibility:hidden"', main: ' style="visibility:visible"' }),
    '',
  );
  add(
    'font-size back on main',
    page(WRAPPERS[1] as never, { body: ' style="font-size:0"', main: ' style="font-size:16px"' }),
    '',
  );
  add(
    'relative font-size on main',
    page(WRAPPERS[1] as never, { body: ' style="font-size:0"', main: ' style="font-size:2em"' }),
    '',
  );
  return cases;
}

const cases = generate();
let blank: BlankPage;
let shown: boolean[];

beforeAll(async () => {
  blank = await openBlankPage();
  shown = [];
  for (let start = 0; start < cases.length; start += 100) {
    const batch = cases.slice(start, start + 100).map((c) => c.html);
    shown.push(
      ...(await blank.page.evaluate(async (pages) => {
        const frames = pages.map((html) => {
          const frame = document.createElement('iframe');
          frame.style.cssText = 'width:800px;height:400px;border:0';
          const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
          frame.srcdoc = html;
          document.body.append(frame);
          return { frame, loaded };
        });
        await Promise.all(frames.map(({ loaded }) => loaded));
        const result = frames.map(({ frame }) => {
          const main = frame.contentDocument?.querySelector('main');
          if (!main) return false;
          const box = main.getBoundingClientRect();
          const visible = main.checkVisibility({
            opacityProperty: true,
            visibilityProperty: true,
            contentVisibilityAuto: true,
          });
          return visible && box.width > 0 && box.height > 0;
        });
        for (const { frame } of frames) frame.remove();
        return result;
      }, batch)),
    );
  }
}, 300_000);

afterAll(async () => {
  await blank?.close();
});

describe('not shown ⇒ not signed: the generated set against Chromium with scripts on', () => {
  it('generates a set of at least 1 000 pages, some shown and some not', () => {
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    expect(shown.filter(Boolean).length).toBeGreaterThan(100);
    expect(shown.filter((s) => !s).length).toBeGreaterThan(100);
  });

  it('every page Chromium does not show is refused as not shown', () => {
    const signed = cases.filter((c, i) => !shown[i] && analyzePage(c.html).refusal?.code !== 'hidden');
    expect(signed.map((c) => c.name)).toEqual([]);
  });

  // Issue 35: the allow-lists of page/not-shown.ts refuse most shown pages of this set (a <span> or an open
  // <details> around <main>, `color: red`, `opacity: .5`, …): only what is on the lists is signed.
  it('every page Chromium shows made only of what the allow-lists allow is signed; the others are counted', () => {
    const plain = cases.filter((c) => c.plain);
    expect(plain.length).toBeGreaterThanOrEqual(3);
    expect(plain.filter((c) => !shown[cases.indexOf(c)]).map((c) => c.name)).toEqual([]);
    expect(plain.filter((c) => analyzePage(c.html).refusal).map((c) => c.name)).toEqual([]);
    const refused = cases.filter((c, i) => shown[i] && analyzePage(c.html).refusal);
    const stricter = refused.filter((c) => c.stricter);
    console.log(
      `not-shown set: ${cases.length} pages, ${shown.filter((s) => !s).length} not shown by Chromium (all refused), ${shown.filter(Boolean).length} shown (${refused.length} of them refused by the allow-lists, ${stricter.length} of those also by issue 23's stricter rules)`,
    );
  });
});
