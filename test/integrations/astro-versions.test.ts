// @siegel/astro declares `astro: ^5 || ^6 || ^7`: every major in that range builds and signs the example.
// Astro 7 is what the conformance suite runs; Astro 5 and 6 are installed as aliased devDependencies of
// packages/astro (`astro5`, `astro6`). Each copy of the example lives outside the repository, with a
// node_modules laid out as a flat install of the version under test would be: the workspace's packages,
// `astro` linked to the aliased version, and that version's own nested dependencies (its `vite`, `cookie`,
// …) on top. So the site's `astro/config`, `astro:content` and `astro/loaders` imports, the binary that
// runs the build, and the bare imports in Astro's build chunks all resolve to that version.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bunkerEnv, type RunningBunker, useBunker } from '../support/bunker-process.js';
import { ADAPTERS, copyExample, type ExampleProject, REPO_ROOT } from './support/example-project.js';
import { checkPages, runSiegelCli, signatureProblems } from './support/signed-output.js';

// Timeouts (docs/testing.md): an Astro build per major version; the mistakes test runs two more builds
// (a wrong and a missing token fail only after the pages are built) and one that fails at config time.
vi.setConfig({ testTimeout: 180_000 });

const astro = ADAPTERS.find((adapter) => adapter.tool === 'astro');
if (!astro) throw new Error('no astro adapter');

/** The aliased installs under the root node_modules, by the major they hold. */
const VERSIONS = [
  { major: 5, alias: 'astro5' },
  { major: 6, alias: 'astro6' },
] as const;

/** Every major of the peer range, for the messages: 7 is the workspace's own `astro`. */
const ALL_VERSIONS = [...VERSIONS, { major: 7, alias: 'astro' }] as const;

/** A page that prints the Astro version that rendered it (`Astro.generator`: `Astro v5.18.2`). */
const VERSION_PAGE = `---
import Base from '../layouts/Base.astro';
---
<Base title="Version" description="Which Astro built this page.">
  <h1>Built with</h1>
  <p id="generator">{Astro.generator}</p>
</Base>
`;

/**
 * Fill `target` (a project's `node_modules`) with links: every package of the workspace's node_modules,
 * then `astro` → the aliased install and its nested dependencies over the workspace's versions.
 */
async function linkFlatInstall(target: string, alias: string): Promise<void> {
  const layers = [join(REPO_ROOT, 'node_modules'), join(REPO_ROOT, 'node_modules', alias, 'node_modules')];
  const linked = new Map<string, string>();
  for (const layer of layers) {
    for (const entry of await readdir(layer).catch(() => [] as string[])) {
      if (entry.startsWith('.')) continue;
      if (entry.startsWith('@')) {
        for (const name of await readdir(join(layer, entry)))
          linked.set(`${entry}/${name}`, join(layer, entry, name));
      } else {
        linked.set(entry, join(layer, entry));
      }
    }
  }
  linked.set('astro', join(REPO_ROOT, 'node_modules', alias));
  for (const [name, source] of linked) {
    if (name.includes('/')) await mkdir(join(target, name.split('/')[0] as string), { recursive: true });
    await symlink(source, join(target, name), 'dir');
  }
}

let bunker: RunningBunker;
let parent: string;
const projects: ExampleProject[] = [];

/** A copy of the example whose `astro` is the install `alias` holds (of major `major`). */
async function versionProject(major: number, alias: string) {
  const installed = join(REPO_ROOT, 'node_modules', alias);
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
    version: string;
    bin: { astro: string };
  };
  expect(manifest.version.split('.')[0]).toBe(String(major));

  const base = astro as NonNullable<typeof astro>;
  const adapter = {
    ...base,
    command: () => ({ script: join(installed, manifest.bin.astro), args: ['build'] }),
  };
  const project = await copyExample(adapter, `astro${major}`, parent);
  projects.push(project);
  await linkFlatInstall(join(project.dir, 'node_modules'), alias);
  await writeFile(join(project.dir, 'src/pages/version.astro'), VERSION_PAGE);
  return { project, manifest };
}

/** A stack frame of Siegel's own code: what a user mistake must not print (issue 39, item 3). */
const OUR_FRAME = /^\s*at .*(?:packages\/(?:astro|core)\/|node_modules\/@siegel\/)/m;

beforeAll(async () => {
  bunker = await useBunker();
  parent = await mkdtemp(join(tmpdir(), 'siegel-astro-versions-'));
});

afterAll(async () => {
  await Promise.all(projects.map((project) => project.remove()));
  if (parent) await rm(parent, { recursive: true, force: true });
  await bunker?.stop();
});

describe('@siegel/astro across the peer range', () => {
  it.each(VERSIONS)(
    'Astro $major builds the example, every page signed and verified',
    async ({ major, alias }) => {
      const { project, manifest } = await versionProject(major, alias);
      await project.writeEnv(bunkerEnv(bunker));

      const result = await project.build();
      expect(result.code, result.output).toBe(0);

      // The site really was rendered by the version under test, not the workspace's Astro 7.
      const versionPage = await project.read('version/index.html');
      expect(versionPage).toContain(`Astro v${manifest.version}`);

      const pages = await checkPages(project.outDir);
      expect(pages.map((page) => page.path)).toEqual(
        expect.arrayContaining([
          'index.html',
          'about/index.html',
          'blog/index.html',
          'blog/first-post/index.html',
          'counter/index.html',
          'version/index.html',
          '404.html',
        ]),
      );
      expect(pages.every((page) => page.hasMain)).toBe(true);
      expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
      const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
      expect(verified.code, verified.output).toBe(0);
    },
  );
});

// Issue 39, item 3: a missing token, a wrong token and a missing `site` are the user's mistakes, not crashes.
// Each build fails with the CLI's message and a hint as Astro's user error (`[AstroUserError]`), and
// prints no stack frame of Siegel's.
describe('@siegel/astro: the three common mistakes read as messages, not crashes', () => {
  it.each(ALL_VERSIONS)('Astro $major', async ({ major, alias }) => {
    const { project } = await versionProject(major, alias);
    const expectMessage = (
      result: { code: number | null; output: string },
      message: RegExp,
      hint: string,
    ) => {
      expect(result.code, result.output).not.toBe(0);
      expect(result.output).toMatch(/\[AstroUserError\]/);
      expect(result.output).toMatch(message);
      expect(result.output).toMatch(/^\s*Hint:\s*$/m);
      expect(result.output).toContain(hint);
      expect(result.output).not.toMatch(OUR_FRAME);
    };

    // No `site`: fails in `astro:config:setup`, before any page is built.
    await project.configureSource((original) => original.replace(/^\s*site: .*$/m, ''));
    await project.writeEnv(bunkerEnv(bunker));
    expectMessage(
      await project.build(),
      /@siegel\/astro needs the site URL: set `site` in astro.config/,
      "`site: 'https://example.com'` in defineConfig",
    );

    await project.configureSource((original) => original);
    await project.writeEnv({ ...bunkerEnv(bunker), BUNKER_API_TOKEN: undefined });
    expectMessage(
      await project.build(),
      /^.*BUNKER_API_TOKEN nicht gesetzt\s*$\n^.*BUNKER_API_TOKEN is not set/m,
      'Put `BUNKER_API_TOKEN=…` into `.env` in the project root',
    );

    await project.writeEnv({ ...bunkerEnv(bunker), BUNKER_API_TOKEN: 'not-the-token-of-this-bunker' });
    expectMessage(
      await project.build(),
      /^.*BUNKER_API_TOKEN ungültig\s*$\n^.*rejected BUNKER_API_TOKEN \(HTTP 401\)/m,
      'Copy the API token the bunker was started with',
    );
  });
});
