// Where Debian's Firefox ESR (153.7) does not build today's standard tree, and Chromium (156) and Siegel do
// (and one where Firefox does and Chromium and Siegel do not: <search> as a special element, refused). One
// home for the list, read by the Firefox comparisons (test/page-hash/*-firefox.test.ts). The rule of issue 23:
// Siegel must read a page as Firefox does wherever Firefox agrees with the standard — taken to be wherever
// Firefox and Chromium build the same tree; where they differ, Siegel must read it as Chromium does and the
// case must belong to one of the classes below, each with its reason. A new Firefox that fixes one just makes
// the class match nothing (the tests print how many each explains).
import { analyzePage } from '@siegel/core';

/** A class of inputs Firefox reads differently from the standard (and from Chromium and Siegel). */
export interface FirefoxDifference {
  name: string;
  /** What the standard says and what Firefox does instead. */
  reason: string;
  /** Whether a page and Firefox's reading of it belong to the class. */
  matches(html: string, firefox: string | null): boolean;
}

export const FIREFOX_DIFFERENCES: readonly FirefoxDifference[] = [
  {
    name: 'template bounds table scope',
    reason:
      'the standard\'s "has an element in table scope" stops at <template> (html, table, template); Firefox ' +
      'looks through it, so a table tag inside a <template> in a <table> (</table>, </tbody>, </tr>, <tr> in ' +
      'a cell…) closes the template and the outer table, where the standard ignores it',
    matches: (html) => /<table>.*<template>.*<\/?(table|tbody|thead|tfoot|tr)>/s.test(html),
  },
  {
    name: '<selectedcontent> not filled',
    reason:
      'customizable <select>: the standard clones the selected <option> into <selectedcontent> when the ' +
      'option is popped; Firefox leaves <selectedcontent> empty',
    matches: (html, firefox) =>
      html.includes('<selectedcontent>') && (firefox ?? '').includes('<selectedcontent></selectedcontent>'),
  },
  {
    name: 'processing instructions',
    reason:
      "today's standard tokenizes <?target data?> as a processing instruction; Firefox still makes it a " +
      'bogus comment (<!--?…-->)',
    matches: (html, firefox) => html.includes('<?') && (firefox ?? '').includes('<!--?'),
  },
  {
    name: '<nobr> after a foster-parented <marquee>',
    reason:
      'html5lib adoption02.dat #3: a second <nobr> with the first still in scope runs the adoption agency and ' +
      "closes it (the marquee's marker went with the table); Firefox nests the second <nobr> in the first",
    matches: (html) => /<nobr>.*<table>.*<marquee>.*<\/table>.*<nobr>/s.test(html),
  },
  {
    name: '<dialog> and <search> as special elements',
    reason:
      'the standard counts <search>, not <dialog>, among the special elements that stop the adoption agency ' +
      '(its furthest block), "any other end tag" and the <li>/<dd>/<dt> start tags; Firefox counts both, ' +
      'parse5 and Chromium neither. Where a misnested tag crosses an open one (<em><dialog>a</em>x), Firefox ' +
      'builds another tree, and text it moves into a closed <dialog> is not shown: Siegel refuses such a page ' +
      '(page/browser-departures.ts) rather than read <search> otherwise, which would change how signed pages hash',
    // Only a page the signer refuses for it (a refusal that is page-wide, so judged with `body` selected).
    matches: (html) =>
      /<(dialog|search)[\s>]/.test(html) &&
      analyzePage(html, { selector: 'body' }).refusal?.message.includes('Firefox counts') === true,
  },
  {
    name: '<frameset> after text that starts with whitespace',
    reason:
      'the first non-whitespace character in body sets frameset-ok to "not ok", so a later <frameset> is ' +
      'ignored; Firefox misses it when the text run starts with whitespace (" a ") and replaces the body with ' +
      'the frameset, so the selected element is gone',
    matches: (html, firefox) => html.includes('<frameset') && firefox === null,
  },
];

/** One page as Siegel, Chromium and Firefox read it (the selected element's `innerHTML`). */
export interface ThreeReadings {
  name: string;
  ours: string | null;
  chromium: string | null;
  firefox: string | null;
  html: string;
}

export interface Comparison {
  /** Pages compared. */
  pages: number;
  /** Firefox reads the page as Siegel does. */
  agree: number;
  /** Firefox reads it as Chromium does, Siegel does not: a failure. */
  oursDiffers: string[];
  /** Firefox and Chromium differ and Siegel reads it as neither: a failure. */
  oursAlone: string[];
  /** Firefox differs from Chromium and Siegel, in a named class: names of the pages, by class. */
  explained: Record<string, string[]>;
  /** Firefox differs from Chromium and Siegel, in no class: a failure. */
  unexplained: string[];
}

/** Sort each page into agreement, a named Firefox difference, or a failure. */
export function compareWithFirefox(readings: readonly ThreeReadings[]): Comparison {
  const result: Comparison = {
    pages: readings.length,
    agree: 0,
    oursDiffers: [],
    oursAlone: [],
    explained: Object.fromEntries(FIREFOX_DIFFERENCES.map((difference) => [difference.name, []])),
    unexplained: [],
  };
  for (const reading of readings) {
    const show = `${reading.name}: ${JSON.stringify(reading.html)} — ours ${JSON.stringify(reading.ours)}, Chromium ${JSON.stringify(reading.chromium)}, Firefox ${JSON.stringify(reading.firefox)}`;
    if (reading.ours === reading.firefox) result.agree++;
    else if (reading.firefox === reading.chromium) result.oursDiffers.push(show);
    else if (reading.ours !== reading.chromium) result.oursAlone.push(show);
    else {
      const difference = FIREFOX_DIFFERENCES.find((d) => d.matches(reading.html, reading.firefox));
      if (difference) result.explained[difference.name]?.push(reading.name);
      else result.unexplained.push(show);
    }
  }
  return result;
}

/** One line for the test log: pages, agreement, and each class with its count. */
export function describeComparison(label: string, comparison: Comparison): string {
  const classes = Object.entries(comparison.explained)
    .map(([name, pages]) => `${name}: ${pages.length}`)
    .join(', ');
  const differ = comparison.pages - comparison.agree;
  return `${label}: ${comparison.pages} pages, ${comparison.agree} read as Firefox reads them, ${differ} differ (${classes}; unexplained ${comparison.unexplained.length})`;
}
