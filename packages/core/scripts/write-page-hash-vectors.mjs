// Regenerate fixtures/page-hash/expected.json from the vector pages, with OUR implementation (the built
// package: run `npm run build` first). The Chromium test (test/page-hash/) then cross-checks every hash
// against DOMParser + crypto.subtle in a real browser. Run: npm run vectors -w @siegel/core
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { hashContent, readPageContent } from '../dist/index.js';

const directory = fileURLToPath(new URL('../fixtures/page-hash/', import.meta.url));

/**
 * Vectors where current Chromium's DOMParser is known to build a different tree than parse5 8.1 (and so
 * the `siegel-page/1` algorithm): the canonical hash is ours, the browser's differs. The Chromium test
 * asserts that these DO differ, so this list cannot go stale silently.
 */
const DIVERGENT = {
  '33-select-rich-content.html':
    'Customizable <select> (HTML parser change of 2025): Chromium keeps <button>, <selectedcontent>, <div> and <span> inside <select>; parse5 8.1 drops those tags and keeps only their text.',
  '34-processing-instruction.html':
    'Processing instructions (HTML parser change of 2025): Chromium parses <?php … ?> in body content as a ProcessingInstruction node and serializes it back as <?…?>; parse5 8.1 makes it a bogus comment <!--?…?-->.',
};

const files = (await readdir(directory)).filter((file) => file.endsWith('.html')).sort();
const vectors = [];
for (const file of files) {
  const html = await readFile(`${directory}${file}`, 'utf8');
  const content = readPageContent(html, 'main');
  if (content === undefined) throw new Error(`Vector \`${file}\` has no <main>.`);
  const vector = { file, sha256: hashContent(content), innerHTML: content };
  if (DIVERGENT[file]) vector.divergent = { browser: 'chromium', reason: DIVERGENT[file] };
  vectors.push(vector);
}
for (const file of Object.keys(DIVERGENT)) {
  if (!files.includes(file)) throw new Error(`Divergent vector \`${file}\` does not exist.`);
}
const expected = {
  spec: 'siegel-page/1',
  selector: 'main',
  algorithm:
    'sha256 (lowercase hex) of the UTF-8 bytes of the innerHTML of the first element matching the selector, parsed as text/html with scripting disabled (parse5 8.1 = DOMParser)',
  vectors,
};
await writeFile(`${directory}expected.json`, `${JSON.stringify(expected, null, 2)}\n`);
console.log(
  `${vectors.length} vectors (${Object.keys(DIVERGENT).length} known to diverge in Chromium) → fixtures/page-hash/expected.json`,
);
