// Issue 23, item 1 / acceptance 1: the parser at today's standard where parse5 8.1 lagged — `select` as a scope
// boundary, CDATA in foreign content by "adjusted current node not in the HTML namespace", `template` as a
// table-scope boundary — on the minimal inputs and on variants generated around them (the tables are
// in test/support/parser-edge-cases.ts). For each, `main.innerHTML` of Chromium's DOMParser (what the hash is
// taken of) equals ours, string for string.
import { readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';
import { readInDOMParser } from '../support/dom-parser.js';
import { PARSER_EDGE_CASES as cases, MINIMAL, pageOf } from '../support/parser-edge-cases.js';

let blank: BlankPage;
let browser: Array<string | null>;

beforeAll(async () => {
  blank = await openBlankPage();
  browser = await blank.page.evaluate(readInDOMParser, { pages: cases, selector: 'main' });
}, 60_000);

afterAll(async () => {
  await blank?.close();
});

describe('the parser at the edges of today’s standard, against Chromium’s DOMParser', () => {
  it(`generates variants beside the ${MINIMAL.length} minimal inputs`, () => {
    expect(cases.length).toBeGreaterThan(1000);
  });

  it('the minimal inputs of issue 23 read as Chromium reads them', () => {
    const ours = MINIMAL.map((content) => readPageContent(pageOf(content)));
    expect(ours).toEqual(browser.slice(0, MINIMAL.length));
    // The select swallows the rest of the page (main's end tag is out of scope), as browsers have it.
    expect(ours[0]).toBe(
      '<p>Size: <select><option>M</option><p></p><p>Batch 42 is recalled.</p><footer>f</footer></select></p>',
    );
    expect(ours[3]).toBe('<math><mi>z</mi></math>');
  });

  it('every generated variant reads as Chromium reads it', () => {
    const differ = cases
      .map((html, i) => ({ html, ours: readPageContent(html), chromium: browser[i] }))
      .filter((c) => c.ours !== c.chromium);
    expect(differ).toEqual([]);
  });
});
