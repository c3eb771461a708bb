import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzePage, hashPage, readPageContent } from '../src/index.js';

interface Vector {
  file: string;
  sha256: string;
  innerHTML: string;
  divergent?: { browser: string; reason: string };
}

const directory = new URL('../fixtures/page-hash/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', directory), 'utf8')) as {
  spec: string;
  selector: string;
  vectors: Vector[];
};
const read = (file: string) => readFileSync(new URL(file, directory), 'utf8');

describe('siegel-page/1 spec vectors (fixtures/page-hash)', () => {
  it('has at least 40 vectors, and lists every vector page (none dropped, none missing)', () => {
    const files = readdirSync(directory).filter((file) => file.endsWith('.html'));
    expect(expected.spec).toBe('siegel-page/1');
    expect(expected.vectors.length).toBeGreaterThanOrEqual(40);
    expect(expected.vectors.map((vector) => vector.file).sort()).toEqual(files.sort());
  });

  it('names a reason for every vector known to diverge in browsers', () => {
    const divergent = expected.vectors.filter((vector) => vector.divergent);
    expect(divergent.map((vector) => vector.file)).toEqual([
      '33-select-rich-content.html',
      '34-processing-instruction.html',
    ]);
    for (const vector of divergent) expect(vector.divergent?.reason.length).toBeGreaterThan(40);
  });

  for (const vector of expected.vectors) {
    it(`hashes ${vector.file} as the vector says`, () => {
      const html = read(vector.file);
      expect(readPageContent(html, expected.selector)).toBe(vector.innerHTML);
      expect(hashPage(html, { selector: expected.selector })).toBe(vector.sha256);
      expect(analyzePage(html, { selector: expected.selector }).hash).toBe(vector.sha256);
    });
  }
});
