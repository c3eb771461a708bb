// Issue 23, item 1: the parser edges of parser-edges-chromium.test.ts (same inputs, test/support/
// parser-edge-cases.ts) against Debian's Firefox ESR too, "where it agrees with the standard". Firefox's
// DOMParser is read beside Chromium's: wherever the two build the same tree, ours must be that string; where
// Firefox differs from Chromium, ours must be Chromium's and the case must belong to a named, explained class
// of test/support/firefox-differences.ts (Firefox 153: table scope that does not stop at <template>; issue 34:
// <dialog> and <search> as special elements, on pages the signer refuses). Also issue 34: the template shapes
// where Chromium departs from the standard read in Firefox as the standard (and Siegel) has them.
import { analyzePage, readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInDOMParser } from '../support/dom-parser.js';
import { type BothBrowsers, openBothBrowsers } from '../support/firefox.js';
import { type Comparison, compareWithFirefox, describeComparison } from '../support/firefox-differences.js';
import {
  CHROMIUM_TEMPLATE_DEPARTURES,
  PARSER_EDGE_CASES as cases,
  FIREFOX_SPECIAL_CROSSINGS,
  MINIMAL,
  pageOf,
} from '../support/parser-edge-cases.js';

let browsers: BothBrowsers | undefined;
let inFirefox: Array<string | null>;
let departuresInFirefox: Array<string | null>;
let comparison: Comparison;

beforeAll(async () => {
  browsers = await openBothBrowsers();
  const read = { pages: cases, selector: 'main' };
  let inChromium: Array<string | null>;
  [inChromium, inFirefox, departuresInFirefox] = await Promise.all([
    browsers.chromium.page.evaluate(readInDOMParser, read),
    browsers.firefox.page.evaluate(readInDOMParser, read),
    browsers.firefox.page.evaluate(readInDOMParser, {
      pages: CHROMIUM_TEMPLATE_DEPARTURES.map(pageOf),
      selector: 'main',
    }),
  ]);
  comparison = compareWithFirefox(
    cases.map((html, i) => ({
      name: `case ${i}`,
      html,
      ours: readPageContent(html) ?? null,
      chromium: inChromium[i] ?? null,
      firefox: inFirefox[i] ?? null,
    })),
  );
  console.log(describeComparison(`parser edges, ${browsers.firefox.version}`, comparison));
}, 120_000);

afterAll(async () => {
  await browsers?.close();
});

describe('the parser at the edges of today’s standard, against Firefox ESR’s DOMParser', () => {
  it('the minimal inputs of issue 23 read as Firefox reads them, with no exception', () => {
    expect(comparison.pages).toBe(cases.length);
    expect(cases.length).toBeGreaterThan(1000);
    // The minimal inputs come first, and need no exception: ours is Firefox's string, as it is Chromium's.
    expect(MINIMAL.map((content) => readPageContent(pageOf(content)))).toEqual(
      inFirefox.slice(0, MINIMAL.length),
    );
  });

  it('every variant Firefox and Chromium read alike reads so here too', () => {
    expect(comparison.oursDiffers).toEqual([]);
    expect(comparison.oursAlone).toEqual([]);
  });

  it('every other variant is a named Firefox difference, and they are few', () => {
    expect(comparison.unexplained).toEqual([]);
    // 1 796 of 1 855 in Firefox 153.8: 35 "template bounds table scope", 24 <dialog>/<search> crossings (refused).
    expect(comparison.agree / comparison.pages).toBeGreaterThan(0.95);
  });

  it('refuses every page where a misnested tag crosses an open <dialog> or <search>: Firefox reads each otherwise', () => {
    const pages = FIREFOX_SPECIAL_CROSSINGS.map(pageOf);
    expect(pages.filter((html) => analyzePage(html).refusal?.code !== 'ignored-markup')).toEqual([]);
    // Each is in PARSER_EDGE_CASES, read by Chromium as ours (the Chromium test), and by Firefox otherwise.
    expect(comparison.explained['<dialog> and <search> as special elements']?.length).toBe(pages.length);
    const firefox = (content: string) => inFirefox[cases.indexOf(pageOf(content))];
    // Text after a misnested </em> lands in the closed <dialog> in Firefox: a reader there does not see `x`.
    expect(readPageContent(pageOf('<em><dialog>a</em>x</dialog>y'))).toBe('<em><dialog>a</dialog></em>xy');
    expect(firefox('<em><dialog>a</em>x</dialog>y')).toBe('<em></em><dialog><em>a</em>x</dialog>y');
    // The second <li> goes into the dialog instead of closing the first item.
    expect(firefox('<ul><li><dialog>a<li>b</dialog></ul>')).toBe(
      '<ul><li><dialog>a<li>b</li></dialog></li></ul>',
    );
  });

  it('reads the template shapes Chromium departs on as the standard and Siegel do (issue 34)', () => {
    const differ = CHROMIUM_TEMPLATE_DEPARTURES.map(pageOf).filter(
      (html, i) => readPageContent(html) !== departuresInFirefox[i],
    );
    expect(differ).toEqual([]);
  });
});
