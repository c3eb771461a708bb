// Issue 10: "one page with a 600 KB <title> makes `siegel sign` fail with nothing signed". The bunker cannot
// sign that page's event (≈ 1.2 MB: the title is its content and its `alt` tag) — it answered 500 before it
// checked event sizes, 413 since — and that must fail that page only: listed with the reason, counted,
// every other page signed, written and cached, exit code 1 at the end.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSignatureBlock, verifySite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateSite } from '../../bench/sign-site/generate-site.mjs';
import { type RunningBunker, startBunker } from '../support/bunker-process.js';
import { runSiegel } from './support.js';

// Timeouts (docs/testing.md): a 1.x MiB event refused by a real bunker: 22 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

const SITE = 'https://example.com';
const PAGES = 40;
const HUGE = 'huge-title/index.html';
const HUGE_PAGE = `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${'Sehr langer Titel '.repeat(
  34_000,
)}</title></head><body><main><p>A page whose title is 600 KB.</p></main></body></html>\n`;

let bunker: RunningBunker;
let root: string;
let paths: string[];

beforeAll(async () => {
  bunker = await startBunker();
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-per-page-'));
  paths = await generateSite(join(root, 'build'), PAGES, 11);
  await mkdir(join(root, 'build', 'huge-title'));
  await writeFile(join(root, 'build', HUGE), HUGE_PAGE);
  await writeFile(
    join(root, '.env'),
    `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=${bunker.apiToken}\nSITE_URL=${SITE}\n`,
  );
});

afterAll(async () => {
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('siegel sign with one page the bunker cannot sign (issue 10)', () => {
  it('signs every other page, lists the refused one with the reason, and exits 1', async () => {
    expect(HUGE_PAGE.length).toBeGreaterThan(600_000);
    const dist = join(root, 'dist');
    await cp(join(root, 'build'), dist, { recursive: true });
    const run = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`Siegel: ${PAGES} signed, 0 unchanged, 0 skipped (no <main>), 1 failed`);
    // 413 from a bunker that checks event sizes; 500 (persisting, while it signs a probe) from one that
    // did not yet — the page fails alone either way, with the bunker's answer as the reason.
    expect(lines[1]).toMatch(
      new RegExp(
        `^ {2}failed {3}${HUGE.replace(/[./]/g, '\\$&')}: its event \\(1\\.\\d MiB\\) was not signed: the bunker at \`${bunker.url.replace(/[./]/g, '\\$&')}\` refused to sign it: HTTP (413|500) `,
      ),
    );
    // The site manifest lists the signed pages (and the refused one as a plain file).
    expect(lines[2]).toMatch(/^Site manifest: signed, \d+ files listed/);
    expect(lines).toHaveLength(3);

    // The refused page is as the build wrote it; every other page carries a valid signature.
    expect(await readFile(join(dist, HUGE), 'utf8')).toBe(HUGE_PAGE);
    const report = await verifySite(dist, { pubkey: bunker.pubkey, site: SITE });
    expect(report).toMatchObject({ valid: PAGES, invalid: 1, unsigned: 1 });
    expect(report.pages.find((page) => page.verdict !== 'valid')?.page).toBe(HUGE);

    // The cache holds the signed pages (not the refused one): the next run signs nothing new and fails the
    // same page again.
    const cache = JSON.parse(await readFile(join(root, '.sign-cache.json'), 'utf8')) as {
      pages: Record<string, unknown>;
    };
    expect(Object.keys(cache.pages).sort()).toEqual([...paths].sort());
    const again = await runSiegel(['sign', 'dist'], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`Siegel: 0 signed, ${PAGES} unchanged, 0 skipped (no <main>), 1 failed`);
    for (const path of paths.slice(0, 3))
      expect(readSignatureBlock(await readFile(join(dist, path), 'utf8'))?.pubkey).toBe(bunker.pubkey);
  });

  it('a global error still stops the run with its German message: a wrong token signs nothing', async () => {
    const project = join(root, 'wrong-token');
    await cp(join(root, 'build'), join(project, 'dist'), { recursive: true });
    await writeFile(
      join(project, '.env'),
      `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=not-the-token-0123456789\nSITE_URL=${SITE}\n`,
    );
    const run = await runSiegel(['sign', 'dist'], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe('BUNKER_API_TOKEN ungültig');
    expect(await readFile(join(project, 'dist', paths[0] as string), 'utf8')).toBe(
      await readFile(join(root, 'build', paths[0] as string), 'utf8'),
    );
  });
});
