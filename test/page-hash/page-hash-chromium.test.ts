// Acceptance 1 of issue 3 and 2 of issue 9 / docs/page-hash.md (the invariant, tested in real Chromium): for every
// siegel-page/2 vector, sha256(new DOMParser().parseFromString(html, 'text/html').querySelector('main')
// .innerHTML), computed IN the browser with crypto.subtle, equals our hash — with no list of known
// divergences left (customizable <select>, processing instructions and <noscript> text included).
import { readFileSync } from 'node:fs';
import { hashPage } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';

interface Vector {
  file: string;
  sha256: string;
  refused?: string;
}

const directory = new URL('../../packages/core/fixtures/page-hash/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', directory), 'utf8')) as {
  selector: string;
  vectors: Vector[];
};
const vectors = expected.vectors.map((vector) => ({
  ...vector,
  html: readFileSync(new URL(vector.file, directory), 'utf8'),
}));

let blank: BlankPage;
let browserHashes: Record<string, string | null>;

beforeAll(async () => {
  blank = await openBlankPage();
  const { page } = blank;
  browserHashes = await page.evaluate(
    async ({ pages, selector }) => {
      const result: Record<string, string | null> = {};
      for (const { file, html } of pages) {
        const element = new DOMParser().parseFromString(html, 'text/html').querySelector(selector);
        if (!element) {
          result[file] = null;
          continue;
        }
        const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(element.innerHTML));
        result[file] = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(
          '',
        );
      }
      return result;
    },
    { pages: vectors.map(({ file, html }) => ({ file, html })), selector: expected.selector },
  );
});

afterAll(async () => {
  await blank?.close();
});

describe('siegel-page/2 in Chromium: DOMParser + crypto.subtle agree with our hash', () => {
  it('covers at least 40 vectors, none marked divergent', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(40);
    expect(Object.keys(browserHashes)).toHaveLength(vectors.length);
    expect(vectors.filter((vector) => 'divergent' in vector)).toEqual([]);
  });

  for (const vector of vectors) {
    it(`${vector.file}: same hash in Chromium${vector.refused ? ` (refused by the signer: ${vector.refused})` : ''}`, () => {
      expect(browserHashes[vector.file]).toBe(vector.sha256);
      expect(hashPage(vector.html, { selector: expected.selector })).toBe(vector.sha256);
    });
  }
});
