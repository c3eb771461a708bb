// Issue 23, item 1 / acceptance 1: the parser at today's standard where parse5 8.1 lagged — `select` as a scope
// boundary, CDATA in foreign content by "adjusted current node not in the HTML namespace", `template` as a
// table-scope boundary — on the minimal inputs and on variants generated around them (the tables are
// in test/support/parser-edge-cases.ts). For each, `main.innerHTML` of Chromium's DOMParser (what the hash is
// taken of) equals ours, string for string. Issue 34: what a template drops after `<col>` or in a table body
// is signed (and read alike); the template shapes where Chromium departs from the standard are refused, and
// Chromium is seen to read each otherwise.
import { analyzePage, readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';
import { readInDOMParser } from '../support/dom-parser.js';
import {
  CHROMIUM_TEMPLATE_DEPARTURES,
  PARSER_EDGE_CASES as cases,
  MINIMAL,
  pageOf,
  TEMPLATE_DROPPED,
} from '../support/parser-edge-cases.js';

let blank: BlankPage;
let browser: Array<string | null>;
let departures: Array<string | null>;

beforeAll(async () => {
  blank = await openBlankPage();
  browser = await blank.page.evaluate(readInDOMParser, { pages: cases, selector: 'main' });
  departures = await blank.page.evaluate(readInDOMParser, {
    pages: CHROMIUM_TEMPLATE_DEPARTURES.map(pageOf),
    selector: 'main',
  });
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

  it('signs the tags a template drops after <col> or in a table body (issue 34; read alike by the test above)', () => {
    expect(TEMPLATE_DROPPED.length).toBeGreaterThan(100);
    const refused = TEMPLATE_DROPPED.filter((content) => analyzePage(pageOf(content)).refusal !== undefined);
    expect(refused).toEqual([]);
  });

  it('refuses the template shapes Chromium reads otherwise than the standard, each read otherwise by Chromium', () => {
    const pages = CHROMIUM_TEMPLATE_DEPARTURES.map(pageOf);
    const signed = pages.filter((html) => analyzePage(html).refusal?.code !== 'ignored-markup');
    expect(signed).toEqual([]);
    // Why they are refused: Chromium's main.innerHTML is not the standard's tree, which the hash would be of.
    const alike = pages.filter((html, i) => readPageContent(html) === departures[i]);
    expect(alike).toEqual([]);
    const chromium = (content: string) => departures[CHROMIUM_TEMPLATE_DEPARTURES.indexOf(content)];
    // "In body" after a <title>: the <col> is ignored and a <table> appears where the standard has the <col>.
    expect(readPageContent(pageOf('<template><title>t</title><col><table>x</table></template>q'))).toBe(
      '<template><title>t</title><col></template>q',
    );
    expect(chromium('<template><title>t</title><col><table>x</table></template>q')).toBe(
      '<template><title>t</title>x<table></table></template>q',
    );
    // </form> in a template stops at the <dl>; the standard closes both.
    expect(chromium('<template><form><dl></form>x</template>q')).toBe(
      '<template><form><dl>x</dl></form></template>q',
    );
    // <form> in a table inside a template: kept empty, where the standard ignores it.
    expect(chromium('<template><caption></caption><form>x</template>q')).toBe(
      '<template><caption></caption><form></form>x</template>q',
    );
  });
});
