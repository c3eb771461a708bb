// Issue 23, item 2, against Firefox ESR too: every html5lib page analyzePage signs (the corpus and readings of
// html5lib-signing-chromium.test.ts, test/support/html5lib-pages.ts) hashes as Debian's Firefox ESR has it,
// wherever Firefox agrees with the standard. Firefox's DOMParser is read beside Chromium's: where the two
// build the same tree, ours must be that string; where Firefox differs from Chromium, ours must be
// Chromium's and the page must belong to a named, explained class of test/support/firefox-differences.ts.
// Which pages are signed and which refused is the Chromium test's business; this one compares the signed.
import { analyzePage, readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInDOMParser } from '../support/dom-parser.js';
import { type BothBrowsers, openBothBrowsers } from '../support/firefox.js';
import { type Comparison, compareWithFirefox, describeComparison } from '../support/firefox-differences.js';
import { READINGS, HTML5LIB_TESTS as tests } from '../support/html5lib-pages.js';

let browsers: BothBrowsers | undefined;
const comparisons: Record<string, Comparison> = {};

beforeAll(async () => {
  browsers = await openBothBrowsers();
  for (const reading of READINGS) {
    const signed = tests
      .map((test) => ({ name: test.name, html: reading.page(test.data) }))
      .filter(({ html }) => {
        const analysis = analyzePage(html, { selector: reading.selector });
        return analysis.hash !== undefined && !analysis.refusal;
      });
    const read = { pages: signed.map((page) => page.html), selector: reading.selector };
    const [inChromium, inFirefox] = await Promise.all([
      browsers.chromium.page.evaluate(readInDOMParser, read),
      browsers.firefox.page.evaluate(readInDOMParser, read),
    ]);
    const comparison = compareWithFirefox(
      signed.map((page, i) => ({
        ...page,
        ours: readPageContent(page.html, reading.selector) ?? null,
        chromium: inChromium[i] ?? null,
        firefox: inFirefox[i] ?? null,
      })),
    );
    comparisons[reading.name] = comparison;
    console.log(
      describeComparison(`html5lib ${reading.name}, ${tests.length} tests, signed`, comparison),
      JSON.stringify(comparison.explained),
    );
  }
}, 120_000);

afterAll(async () => {
  await browsers?.close();
});

describe('html5lib corpus: signed pages hash as in Firefox ESR, where Firefox agrees with Chromium', () => {
  for (const reading of READINGS)
    it(reading.name, () => {
      const comparison = comparisons[reading.name];
      expect(comparison?.pages).toBeGreaterThan(1000);
      expect(comparison?.oursDiffers).toEqual([]);
      expect(comparison?.oursAlone).toEqual([]);
      expect(comparison?.unexplained).toEqual([]);
      // Firefox 153.7: 1 507 of 1 512 (body) and 1 483 of 1 492 (main) signed pages read as ours.
      expect((comparison?.agree ?? 0) / (comparison?.pages ?? 1)).toBeGreaterThan(0.98);
    });
});
