// Issue 9, acceptance 4: the parser travels with the package. `npm pack` of @siegel/core, installed in a
// fresh project outside the repository (its dependencies from the registry, or npm's cache), hashes
// pages with a <select> exactly as Chromium's DOMParser + innerHTML + crypto.subtle do. The packed
// package must not reach back into this repository: the test checks where it was loaded from.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VECTORS = new URL('../../packages/core/fixtures/page-hash/', import.meta.url);

const page = (main: string) =>
  `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Auswahl</title></head><body><main>${main}</main></body></html>`;

// Pages the parse5 release alone hashes differently from Chromium: content inside <select> that it drops.
const PAGES: Record<string, string> = {
  'vector 57 (select with button, selectedcontent, img, div, hr, optgroup)': readFileSync(
    new URL('57-select-customizable-full.html', VECTORS),
    'utf8',
  ),
  'an img inside a select': page(
    '<p>Wähle:</p><select name="s"><img src="https://evil.example/x.png"><option>eins</option></select>',
  ),
  'a div and an attribute on an option': page(
    '<select><div class="hint">Tipp</div><option data-x="1" selected>zwei</option><option>drei</option></select>',
  ),
  'selectedcontent copied from the selected option': page(
    '<select><button><selectedcontent></selectedcontent></button><option><b>A</b></option><option selected><i>B</i> b</option></select>',
  ),
};

let project: string;
let packs: string;
let ourHashes: Record<string, string>;
// The same pages by siegel-page/1 (parse5's own parser): each differs, so the test tells the parsers apart.
let oldHashes: Record<string, string>;
let loadedFrom: string;
let blank: BlankPage;
let browserHashes: Record<string, string>;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  packs = await realpath(await mkdtemp(join(tmpdir(), 'siegel-pack-')));
  project = await realpath(await mkdtemp(join(tmpdir(), 'siegel-fresh-project-')));
  // `npm test` has built dist/ already; prepack's rebuild would rewrite files that tests running beside this
  // one read. That prepack builds a clean clone is test/registry's to show.
  const packed = JSON.parse(
    run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', packs],
      join(ROOT, 'packages/core'),
    ),
  ) as Array<{ filename: string }>;
  const tarball = join(packs, packed[0]?.filename ?? '');

  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }),
  );
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball],
    project,
  );

  await writeFile(join(project, 'pages.json'), JSON.stringify(PAGES));
  await writeFile(
    join(project, 'hash.mjs'),
    [
      "import { readFileSync } from 'node:fs';",
      "import { fileURLToPath } from 'node:url';",
      "import { hashPage } from '@siegel/core';",
      "const pages = JSON.parse(readFileSync('pages.json', 'utf8'));",
      'const hashes = Object.fromEntries(Object.entries(pages).map(([name, html]) => [name, hashPage(html)]));',
      "const old = Object.fromEntries(Object.entries(pages).map(([name, html]) => [name, hashPage(html, { spec: 'siegel-page/1' })]));",
      "console.log(JSON.stringify({ from: fileURLToPath(import.meta.resolve('@siegel/core')), hashes, old }));",
    ].join('\n'),
  );
  const result = JSON.parse(run(process.execPath, ['hash.mjs'], project)) as {
    from: string;
    hashes: Record<string, string>;
    old: Record<string, string>;
  };
  ourHashes = result.hashes;
  oldHashes = result.old;
  loadedFrom = await realpath(result.from);

  blank = await openBlankPage();
  browserHashes = await blank.page.evaluate(async (pages) => {
    const result: Record<string, string> = {};
    for (const [name, html] of Object.entries(pages)) {
      const main = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(main?.innerHTML ?? ''));
      result[name] = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(
        '',
      );
    }
    return result;
  }, PAGES);
}, 300_000);

afterAll(async () => {
  await blank?.close();
  if (project) await rm(project, { recursive: true, force: true });
  if (packs) await rm(packs, { recursive: true, force: true });
});

describe('the packed @siegel/core, installed in a fresh project, hashes <select> pages as Chromium does', () => {
  it('is loaded from the fresh project, not from this repository', () => {
    expect(loadedFrom.startsWith(join(project, 'node_modules', '@siegel', 'core'))).toBe(true);
    expect(loadedFrom.startsWith(ROOT)).toBe(false);
  });

  for (const name of Object.keys(PAGES)) {
    it(name, () => {
      expect(ourHashes[name]).toMatch(/^[0-9a-f]{64}$/);
      expect(ourHashes[name]).toBe(browserHashes[name]);
      expect(oldHashes[name]).not.toBe(browserHashes[name]);
    });
  }
});
