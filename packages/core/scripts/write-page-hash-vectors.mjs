// Regenerate fixtures/page-hash/expected.json from the vector pages, with OUR implementation (the built
// package: run `npm run build` first). The Chromium test (test/page-hash/) then cross-checks every hash
// against DOMParser + crypto.subtle in a real browser. Run: npm run vectors -w @siegel/core
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { analyzePage, hashContent, readPageContent } from '../dist/index.js';

const directory = fileURLToPath(new URL('../fixtures/page-hash/', import.meta.url));

const files = (await readdir(directory)).filter((file) => file.endsWith('.html')).sort();
const vectors = [];
for (const file of files) {
  const html = await readFile(`${directory}${file}`, 'utf8');
  const content = readPageContent(html, 'main');
  if (content === undefined) throw new Error(`Vector \`${file}\` has no <main>.`);
  const vector = { file, sha256: hashContent(content), innerHTML: content };
  // Pages the signer refuses (several <main>, hidden, markup the parser ignores): the hash still must agree.
  const refusal = analyzePage(html, { selector: 'main' }).refusal;
  if (refusal) vector.refused = refusal.code;
  vectors.push(vector);
}
const expected = {
  spec: 'siegel-page/2',
  selector: 'main',
  algorithm:
    "sha256 (lowercase hex) of the UTF-8 bytes of the innerHTML of the first element matching the selector, parsed as text/html with scripting disabled by today's WHATWG algorithm (= DOMParser), serialized with scripting disabled",
  vectors,
};
await writeFile(`${directory}expected.json`, `${JSON.stringify(expected, null, 2)}\n`);
console.log(
  `${vectors.length} vectors (${vectors.filter((vector) => vector.refused).length} refused by the signer) → fixtures/page-hash/expected.json`,
);
