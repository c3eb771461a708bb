// `siegel verify` of a directory parses pages on worker threads (issue 24: it was 2.1× the bare parse and
// slower than signing). The built package is what runs here (unit tests run the TypeScript sources, where the
// worker script does not exist and every page is parsed on the main thread): on a site large enough for the
// pool, with a changed page, a missing event, a page a browser would not decode as UTF-8, a page over the
// size limit and a page without the element, the report with workers must be the report without them.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { runSiegel } from './support.js';

const SITE = 'https://example.com';
const PAGES = 80;

let root: string;
let dist: string;
let paths: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-verify-workers-'));
  dist = join(root, 'dist');
  paths = await generateSite(dist, PAGES, 17);
  await writeFile(join(root, '.env'), `SIEGEL_SECRET_KEY=${'7'.repeat(64)}\nSITE_URL=${SITE}\n`);
  const signed = await runSiegel(['sign'], { cwd: root });
  expect(signed.code, signed.stderr).toBe(0);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** `verifySite` and the number of worker threads it started. */
async function verifyCountingThreads(options: Parameters<typeof verifySite>[1]) {
  let threads = 0;
  const count = () => {
    threads++;
  };
  subscribe('worker_threads', count);
  try {
    return { report: await verifySite(dist, options), threads };
  } finally {
    unsubscribe('worker_threads', count);
  }
}

describe('siegel verify of a directory on parse workers (issue 24)', () => {
  it('judges every page as the main thread alone does, problems and all', async () => {
    const clean = await verifySite(dist, { site: SITE });
    expect(clean.valid).toBe(PAGES);
    const page = (index: number) => paths[index] as string;
    const eventOf = (index: number) =>
      clean.pages.find((entry) => entry.page === page(index))?.found.eventId as string;

    // A changed word in <main>; a deleted event file; the charset declaration gone from a page with
    // non-ASCII text; a page over the size limit; a page without <main> or a block (skipped).
    const changed = join(dist, page(3));
    await writeFile(
      changed,
      (await readFile(changed, 'utf8')).replace('<article><h1>', '<article><h1>Neu: '),
    );
    await rm(join(dist, 'verify', `${eventOf(5)}.json`));
    const undeclared = join(dist, page(7));
    await writeFile(undeclared, (await readFile(undeclared, 'utf8')).replace('<meta charset="utf-8">', ''));
    await mkdir(join(dist, 'big'), { recursive: true });
    await writeFile(join(dist, 'big', 'index.html'), `<main>${'x'.repeat(300_000)}</main>`);
    await mkdir(join(dist, 'plain'), { recursive: true });
    await writeFile(join(dist, 'plain', 'index.html'), '<p>no element here</p>');

    const options = { site: SITE, maxPageBytes: 200_000 };
    const pooled = await verifyCountingThreads({ ...options, parseWorkers: 2 });
    const alone = await verifyCountingThreads({ ...options, parseWorkers: 0 });
    expect(pooled.threads).toBe(2);
    expect(alone.threads).toBe(0);
    expect(pooled.report).toEqual(alone.report);

    const { report } = pooled;
    const codes = (name: string) =>
      report.pages.find((entry) => entry.page === name)?.problems.map((p) => p.code);
    expect(codes(page(3))).toContain('hash.mismatch');
    expect(codes(page(5))).toContain('event.not_found');
    // (No relay of the verifier's: currency unchecked, issue 36.)
    expect(codes(page(7))).toEqual(['page.encoding', 'manifest.unchecked']);
    expect(codes('big/index.html')).toEqual(['page.too_large']);
    expect(report.skipped).toBe(1);
    expect(report.valid).toBe(PAGES - 3);
    expect(report.pages.map((entry) => entry.page)).toEqual([...paths, 'big/index.html'].sort());
  });
});
