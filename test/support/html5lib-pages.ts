// The html5lib-tests tree-construction suite (the copy in packages/core/fixtures/html5lib) as pages to sign:
// every document test (no fragments, no scripting-only tests), read two ways. One home for the corpus of the
// browser comparisons (test/page-hash/html5lib-signing-chromium.test.ts, …-firefox.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { readTreeTests } from '../../packages/core/test/support/html5lib.js';

const directory = new URL('../../packages/core/fixtures/html5lib/', import.meta.url);

export const HTML5LIB_TESTS = readdirSync(directory)
  .filter((file) => file.endsWith('.dat'))
  .flatMap((file) => readTreeTests(file, readFileSync(new URL(file, directory), 'utf8')))
  .filter((test) => test.fragment === undefined && test.scripting !== 'on');

/** Each test's data as a page with `body` selected, and wrapped in `<main>` with `main` selected. */
export const READINGS = [
  { name: 'as a page, body selected', selector: 'body', page: (data: string) => data },
  { name: 'wrapped in <main>', selector: 'main', page: (data: string) => `<main>${data}</main>` },
];
