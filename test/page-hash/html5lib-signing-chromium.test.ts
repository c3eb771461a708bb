// Issue 23, item 2 / acceptance 6: refuse only what a browser could show. Every document test of html5lib-tests'
// tree-construction suite (the copy in packages/core/fixtures/html5lib), read two ways —
// as a page with `body` selected, and wrapped in `<main>` with `main` selected — is signed or refused by
// analyzePage. Every page the signer signs hashes as Chromium's DOMParser has it (innerHTML equal, so the
// SHA-256 is too), and a refusal for ignored markup names only tags a browser keeps something of.
import { readdirSync, readFileSync } from 'node:fs';
import { analyzePage, readPageContent } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTreeTests } from '../../packages/core/test/support/html5lib.js';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';

const directory = new URL('../../packages/core/fixtures/html5lib/', import.meta.url);
const tests = readdirSync(directory)
  .filter((file) => file.endsWith('.dat'))
  .flatMap((file) => readTreeTests(file, readFileSync(new URL(file, directory), 'utf8')))
  .filter((test) => test.fragment === undefined && test.scripting !== 'on');

const READINGS = [
  { name: 'as a page, body selected', selector: 'body', page: (data: string) => data },
  { name: 'wrapped in <main>', selector: 'main', page: (data: string) => `<main>${data}</main>` },
];

let blank: BlankPage;
const browser: Record<string, Array<string | null>> = {};

beforeAll(async () => {
  blank = await openBlankPage();
  for (const reading of READINGS)
    browser[reading.name] = await blank.page.evaluate(
      ({ pages, selector }) =>
        pages.map(
          (html) =>
            new DOMParser().parseFromString(html, 'text/html').querySelector(selector)?.innerHTML ?? null,
        ),
      { pages: tests.map((test) => reading.page(test.data)), selector: reading.selector },
    );
}, 120_000);

afterAll(async () => {
  await blank?.close();
});

describe('html5lib corpus: signed pages hash as in Chromium, refusals only where a browser keeps something', () => {
  for (const reading of READINGS)
    it(reading.name, () => {
      let signed = 0;
      const refused: Record<string, number> = {};
      const differ: string[] = [];
      const needless: string[] = [];
      tests.forEach((test, i) => {
        const html = reading.page(test.data);
        const analysis = analyzePage(html, { selector: reading.selector });
        if (analysis.hash === undefined) return;
        if (analysis.refusal) {
          refused[analysis.refusal.code] = (refused[analysis.refusal.code] ?? 0) + 1;
          // An ignored tag is refused only when its attributes went somewhere or the standard keeps it.
          if (
            analysis.refusal.code === 'ignored-markup' &&
            /ignores the start tag <(form|frame|frameset|head|col|tr|td|caption)>/.test(
              analysis.refusal.message,
            )
          )
            needless.push(`${test.name}: ${analysis.refusal.message}`);
          return;
        }
        signed++;
        if (readPageContent(html, reading.selector) !== browser[reading.name]?.[i]) differ.push(test.name);
      });
      console.log(
        `html5lib ${reading.name}: ${tests.length} pages, ${signed} signed, refused ${JSON.stringify(refused)}`,
      );
      expect(tests.length).toBeGreaterThanOrEqual(1500);
      expect(differ).toEqual([]);
      expect(needless).toEqual([]);
      expect(signed).toBeGreaterThan(1000);
    });
});
