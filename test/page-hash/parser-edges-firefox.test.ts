// Issue 23, item 1: the parser edges of parser-edges-chromium.test.ts (same inputs, test/support/
// parser-edge-cases.ts) against Debian's Firefox ESR too, "where it agrees with the standard". Firefox's
// DOMParser is read beside Chromium's: wherever the two build the same tree, ours must be that string; where
// Firefox differs from Chromium, ours must be Chromium's and the case must belong to a named, explained class
// of test/support/firefox-differences.ts (Firefox 153: table scope that does not stop at <template>).
import { readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInDOMParser } from '../support/dom-parser.js';
import { type BothBrowsers, openBothBrowsers } from '../support/firefox.js';
import { type Comparison, compareWithFirefox, describeComparison } from '../support/firefox-differences.js';
import { PARSER_EDGE_CASES as cases, MINIMAL, pageOf } from '../support/parser-edge-cases.js';

let browsers: BothBrowsers | undefined;
let inFirefox: Array<string | null>;
let comparison: Comparison;

beforeAll(async () => {
  browsers = await openBothBrowsers();
  const read = { pages: cases, selector: 'main' };
  let inChromium: Array<string | null>;
  [inChromium, inFirefox] = await Promise.all([
    browsers.chromium.page.evaluate(readInDOMParser, read),
    browsers.firefox.page.evaluate(readInDOMParser, read),
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
    // 1 678 of 1 711 in Firefox 153.7: the 33 others are all "template bounds table scope".
    expect(comparison.agree / comparison.pages).toBeGreaterThan(0.95);
  });
});
