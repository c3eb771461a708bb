import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzePage, hashPage, readPageContent } from '../src/index.js';

interface Vector {
  file: string;
  sha256: string;
  innerHTML: string;
  refused?: string;
}

const directory = new URL('../fixtures/page-hash/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', directory), 'utf8')) as {
  spec: string;
  selector: string;
  vectors: Vector[];
};
const read = (file: string) => readFileSync(new URL(file, directory), 'utf8');

describe('siegel-page/2 spec vectors (fixtures/page-hash)', () => {
  it('has at least 40 vectors, and lists every vector page (none dropped, none missing)', () => {
    const files = readdirSync(directory).filter((file) => file.endsWith('.html'));
    expect(expected.spec).toBe('siegel-page/2');
    expect(expected.vectors.length).toBeGreaterThanOrEqual(40);
    expect(expected.vectors.map((vector) => vector.file).sort()).toEqual(files.sort());
  });

  it('lists the pages the signer refuses, each for the reason the coverage rules give', () => {
    const refused = expected.vectors.filter((vector) => vector.refused);
    expect(refused.map((vector) => [vector.file, vector.refused])).toEqual([
      ['24-nested-main.html', 'multiple'],
      ['31-void-and-self-closing.html', 'ignored-markup'],
      ['37-forms-nested.html', 'ignored-markup'],
      ['42-body-html-tags-in-main.html', 'ignored-markup'],
      ['54-frameset-like.html', 'ignored-markup'],
      ['60-form-ignored-nested.html', 'ignored-markup'],
    ]);
  });

  for (const vector of expected.vectors) {
    it(`hashes ${vector.file} as the vector says`, () => {
      const html = read(vector.file);
      expect(readPageContent(html, expected.selector)).toBe(vector.innerHTML);
      expect(hashPage(html, { selector: expected.selector })).toBe(vector.sha256);
      const analysis = analyzePage(html, { selector: expected.selector });
      expect(analysis.hash).toBe(vector.sha256);
      expect(analysis.refusal?.code).toBe(vector.refused);
    });
  }
});
