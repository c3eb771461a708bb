// Issue 35 item 1, acceptance 6: what real generators emit signs, and verifies as valid. Four generators that
// no other test builds — Astro Starlight, the VitePress default theme, Docusaurus classic (its template from
// `create-docusaurus`) and an Eleventy site laid out as eleventy-base-blog is — are installed from the npm
// registry into fresh projects outside the repository (once per run, cached nowhere in the repository), with
// exact versions and `npm install --before` so that a run installs what the last one did. Each build is signed
// with a key of the run's own through `signSite` (nothing published): every page with a `<main>` must be
// signed, none refused, and `siegel verify DIR --site` must say valid for every one of them. The log
// carries each generator's figures and the inventory of what stands on the path to `<main>`
// (support/ancestor-inventory.ts), which the ancestor allow-lists are measured against.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LocalKeySigner, type SignSummary, signSite } from '@siegel/core';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type UserShell, userShell } from '../registry/support/user-shell.js';
import { formatInventory, inventoryPages } from './support/ancestor-inventory.js';
import { ELEVENTY_BASE_BLOG, STARLIGHT, VITEPRESS } from './support/generator-sources.js';
import { listPages } from './support/signed-output.js';

// Timeouts (docs/testing.md): the hook installs four generators from the registry and builds them (installs
// in parallel, builds one at a time as installs finish). Docusaurus is the long pole: 1 300 packages, its
// install took 287 s with a cold npm cache and 136 s with a warm one, its build 48–75 s, on 2 cores at load
// 14–17 (the whole file 466 s cold, 255 s warm). Each test signs and verifies one build: at most 19 s
// (Docusaurus's 28 pages) at that load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 900_000 });

/** Dependencies as they were on this day: `npm install --before` resolves every range as it would have then. */
const REGISTRY_DAY = '2026-11-27T00:00:00Z';
const CREATE_DOCUSAURUS = 'create-docusaurus@3.10.2';

/** One generator: how its project is made, built and where its pages land. */
interface Generator {
  name: string;
  /** Folder under the run's temporary directory. */
  folder: string;
  /** Write the project's sources into `dir` (which exists). */
  create(shell: UserShell, dir: string): Promise<void>;
  /** The build: an `npx` command line run in the project. */
  build: string[];
  /** Build output, relative to the project. */
  outDir: string;
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

const GENERATORS: Generator[] = [
  {
    name: 'Astro Starlight',
    folder: 'starlight',
    create: (_shell, dir) => writeFiles(dir, STARLIGHT),
    build: ['astro', 'build'],
    outDir: 'dist',
  },
  {
    name: 'VitePress default theme',
    folder: 'vitepress',
    create: (_shell, dir) => writeFiles(dir, VITEPRESS),
    build: ['vitepress', 'build', 'docs'],
    outDir: 'docs/.vitepress/dist',
  },
  {
    name: 'Docusaurus classic',
    folder: 'docusaurus',
    // The template as a user gets it: `create-docusaurus` copies the classic template and its shared files.
    create: async (shell, dir) => {
      await rm(dir, { recursive: true });
      await shell.ok(dirname(dir), 'npx', [
        '--yes',
        CREATE_DOCUSAURUS,
        'docusaurus',
        'classic',
        '--skip-install',
        '--package-manager',
        'npm',
        '--javascript',
      ]);
    },
    build: ['docusaurus', 'build'],
    outDir: 'build',
  },
  {
    name: 'Eleventy (eleventy-base-blog layout)',
    folder: 'eleventy',
    create: (_shell, dir) => writeFiles(dir, ELEVENTY_BASE_BLOG),
    build: ['@11ty/eleventy'],
    outDir: '_site',
  },
];

/** A generator's build, ready to sign, with how long it took. */
interface Built {
  outDir: string;
  installSeconds: number;
  buildSeconds: number;
}

/** Runs `task`s one after another: builds are CPU-bound, so each build's time is its own. */
function oneAtATime() {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const next = last.then(task, task);
    last = next.catch(() => undefined);
    return next;
  };
}

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

let parent: string;
const built = new Map<string, Promise<Built>>();

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'siegel-real-generators-'));
  const shell = await userShell(parent);
  // Astro's and Docusaurus's telemetry stay off, as on a CI machine.
  const quiet = { ASTRO_TELEMETRY_DISABLED: '1', DOCUSAURUS_TELEMETRY_DISABLED: '1' };
  const inBuildTurn = oneAtATime();
  for (const generator of GENERATORS) {
    const dir = join(parent, generator.folder);
    const prepare = async (): Promise<Built> => {
      await mkdir(dir);
      await generator.create(shell, dir);
      const installing = performance.now();
      await shell.ok(
        dir,
        'npm',
        ['install', `--before=${REGISTRY_DAY}`, '--prefer-offline', '--loglevel=error'],
        quiet,
      );
      const installSeconds = seconds(installing);
      return inBuildTurn(async () => {
        const building = performance.now();
        await shell.ok(dir, 'npx', ['--no-install', ...generator.build], quiet);
        return { outDir: join(dir, generator.outDir), installSeconds, buildSeconds: seconds(building) };
      });
    };
    const result = prepare();
    result.catch(() => undefined); // reported by the generator's own test
    built.set(generator.name, result);
  }
  await Promise.allSettled(built.values());
});

afterAll(async () => {
  if (parent) await rm(parent, { recursive: true, force: true });
});

const secretKey = generateSecretKey();
const pubkey = getPublicKey(secretKey);
const SITE = 'https://generated.siegel.invalid/';

describe('real generators: every page with a <main> is signed and verifies as valid', () => {
  it.each(GENERATORS)('$name', async (generator) => {
    const { outDir, installSeconds, buildSeconds } = await (built.get(generator.name) as Promise<Built>);
    const paths = await listPages(outDir);
    const pages = await Promise.all(
      paths.map(async (path) => ({ path, html: await readFile(join(outDir, path), 'utf8') })),
    );
    const inventory = inventoryPages(pages);
    const withMain = inventory.pages.filter((page) => page.target === 'main').map((page) => page.path);

    const summary: SignSummary = await signSite(outDir, {
      site: SITE,
      signer: new LocalKeySigner(secretKey),
      cacheFile: join(dirname(outDir), `${generator.folder}.sign-cache.json`),
      logger: { info: () => {}, warn: () => {} },
      progress: false,
    });
    const outcome = (kind: string) => summary.pages.filter((page) => page.outcome === kind);
    console.log(
      [
        `${generator.name}: ${paths.length} pages, ${withMain.length} with <main>, ${summary.signed} signed, ` +
          `${summary.refused} refused, ${summary.skipped} without <main>; install ${installSeconds} s, build ${buildSeconds} s`,
        formatInventory(generator.name, inventory),
      ].join('\n'),
    );
    expect(outcome('refused').map((page) => `${page.path}: ${page.code}: ${page.error}`)).toEqual([]);
    expect(outcome('failed').map((page) => `${page.path}: ${page.error}`)).toEqual([]);
    expect(outcome('signed').map((page) => page.path)).toEqual(withMain);
    expect(withMain.length).toBeGreaterThan(0);

    const verified = await runCli(
      ['verify', outDir, '--site', SITE, '--pubkey', pubkey, '--json'],
      dirname(outDir),
    );
    const report = JSON.parse(verified.stdout) as {
      ok: boolean;
      pages: Array<{ page: string; verdict: string; problems: Array<{ code: string }> }>;
    };
    const judged = report.pages.map((page) =>
      `${page.page}: ${page.verdict} ${page.problems.map((problem) => problem.code).join(' ')}`.trim(),
    );
    // Signed and verified without relays: the pages are valid, and whether each is the site's current
    // version could not be asked of any relay (manifest.unchecked, a warning).
    expect(judged).toEqual(withMain.map((path) => `${path}: valid manifest.unchecked`));
    expect(verified.code, verified.stderr).toBe(0);
  });
});
