// What only Astro has: integration order (minifiers after Siegel), build.format, and `astro add`.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bunkerEnv, type RunningBunker, useBunker } from '../support/bunker-process.js';
import { ADAPTERS, copyExample, type ExampleProject, REPO_ROOT } from './support/example-project.js';
import { type CommandResult, runCommand } from './support/run-command.js';
import { checkPages, runSiegelCli, signatureProblems } from './support/signed-output.js';
import { readVerifyVerdict } from './support/verify-in-chromium.js';
import { startWorkspaceRegistry } from './support/workspace-registry.js';

// Timeouts (docs/testing.md): an Astro build per test: 18 s among parallel files
vi.setConfig({ testTimeout: 90_000 });

const astro = ADAPTERS.find((adapter) => adapter.tool === 'astro');
if (!astro) throw new Error('no astro adapter');

/** An inline integration named like the real astro-compress that, like it, minifies the built HTML. */
const FAKE_COMPRESS = `{
  name: 'astro-compress',
  hooks: {
    'astro:build:done': async ({ dir }) => {
      const { readdir, readFile, writeFile } = await import('node:fs/promises');
      const { fileURLToPath } = await import('node:url');
      const root = fileURLToPath(dir);
      for (const entry of await readdir(root, { recursive: true })) {
        if (!entry.endsWith('.html') || entry.startsWith('verify')) continue;
        const file = root + '/' + entry;
        await writeFile(file, (await readFile(file, 'utf8')).replace(/\\s*\\n\\s*/g, ' '));
      }
    },
  },
}`;

let bunker: RunningBunker;
const projects: ExampleProject[] = [];

beforeAll(async () => {
  bunker = await useBunker();
});

afterAll(async () => {
  await Promise.all(projects.map((project) => project.remove()));
  await bunker?.stop();
});

async function signedProject(editConfig: (source: string) => string): Promise<ExampleProject> {
  const project = await copyExample(astro as NonNullable<typeof astro>, 'astro-specific');
  projects.push(project);
  await project.configureSource(editConfig);
  await project.writeEnv(bunkerEnv(bunker));
  return project;
}

describe('@siegel/astro', () => {
  it('warns, with the fix, when a known compressor is listed after Siegel (and it would break the signatures)', async () => {
    const project = await signedProject((source) =>
      source.replace('integrations: [siegel()]', `integrations: [siegel(), ${FAKE_COMPRESS}]`),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('`astro-compress` is listed after `@siegel/astro`');
    expect(result.output).toContain('move siegel() to the end');
    const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
    expect(verified.code, 'the minifier really did break the signatures').not.toBe(0);
  });

  it('stays quiet when the compressor runs before Siegel, and every page verifies', async () => {
    const project = await signedProject((source) =>
      source.replace('integrations: [siegel()]', `integrations: [${FAKE_COMPRESS}, siegel()]`),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    expect(result.output).not.toContain('is listed after `@siegel/astro`');
    const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
    expect(verified.code, verified.output).toBe(0);
  });

  it.each([
    ['file', ['about.html', 'blog/first-post.html', 'counter.html', 'index.html', '404.html']],
    [
      'directory',
      ['about/index.html', 'blog/first-post/index.html', 'counter/index.html', 'index.html', '404.html'],
    ],
  ] as const)('build.format %s: every page signed and verified', async (format, expected) => {
    const project = await signedProject((source) =>
      source.replace('integrations: [siegel()]', `integrations: [siegel()], build: { format: '${format}' }`),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const pages = await checkPages(project.outDir);
    expect(pages.map((page) => page.path)).toEqual(expect.arrayContaining([...expected]));
    expect(pages.every((page) => page.hasMain)).toBe(true);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
    const verified = await runSiegelCli(['verify', project.outDir, '--pubkey', bunker.pubkey], project.dir);
    expect(verified.code, verified.output).toBe(0);
  });

  it('a base path goes into the page URLs and verify links, and the verify page says valid in Chromium', async () => {
    const project = await signedProject((source) =>
      source.replace('integrations: [siegel()]', "integrations: [siegel()], base: '/docs'"),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const pages = await checkPages(project.outDir);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
    const about = pages.find((page) => page.path === 'about/index.html');
    const url = about?.event?.tags.find((tag) => tag[0] === 'url')?.[1];
    expect(url).toBe('https://astro-example.siegel.invalid/docs/about/');
    expect(about?.raw).toContain(
      `href="https://astro-example.siegel.invalid/docs/verify/${about?.block?.eventId}"`,
    );
    const verdict = await readVerifyVerdict(project.outDir, about?.block?.eventId, { base: '/docs' });
    expect(verdict.state, verdict.text).toBe('valid');
  });

  it("output: 'server' signs the prerendered pages in the client directory and names the on-demand ones", async () => {
    const project = await signedProject((source) =>
      source.replace(
        'integrations: [siegel()]',
        `output: 'server',
  adapter: {
    name: 'minimal-adapter',
    hooks: {
      'astro:config:done': ({ setAdapter }) =>
        setAdapter({
          name: 'minimal-adapter',
          entrypointResolution: 'auto',
          serverEntrypoint: new URL('./server-entry.mjs', import.meta.url),
          supportedAstroFeatures: { serverOutput: 'stable', staticOutput: 'stable', hybridOutput: 'stable', sharpImageService: 'stable' },
        }),
    },
  },
  integrations: [siegel()]`,
      ),
    );
    await writeFile(
      join(project.dir, 'server-entry.mjs'),
      "export default { fetch: () => new Response('on demand') };\n",
    );
    const about = join(project.dir, 'src/pages/about.astro');
    await writeFile(
      about,
      (await readFile(about, 'utf8')).replace('---\n', '---\nexport const prerender = true;\n'),
    );
    const result = await project.build();
    expect(result.code, result.output).toBe(0);
    const client = join(project.outDir, 'client');
    const pages = await checkPages(client);
    expect(pages.map((page) => page.path)).toEqual(['about/index.html']);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
    expect(result.output).toMatch(/on-demand pages? \(.*`\/counter`.*\) cannot be signed at build time/);
    expect(result.output).not.toMatch(/on-demand pages? \(.*`\/about`/);
    expect(existsSync(join(project.outDir, 'server/verify'))).toBe(false);
  });

  it('`astro add @siegel/astro` adds it to the config of a fresh copy, offline against the workspace package', async () => {
    // Outside the repository (no lockfile or install metadata above it), so `astro add` finds no package
    // manager and skips its install step; the packages resolve through links to the workspace's node_modules.
    const parent = await mkdtemp(join(tmpdir(), 'siegel-astro-add-'));
    const registry = await startWorkspaceRegistry({
      '@siegel/astro': 'packages/astro',
      '@siegel/core': 'packages/core',
    });
    try {
      const project = await copyExample(astro as NonNullable<typeof astro>, 'astro-add', parent);
      await project.configure(false);
      const config = join(project.dir, 'astro.config.mjs');
      await writeFile(config, (await readFile(config, 'utf8')).replace(/^import siegel.*\n/m, ''));
      const manifestPath = join(project.dir, 'package.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
        dependencies: Record<string, string>;
      };
      delete manifest.dependencies['@siegel/astro'];
      delete manifest.dependencies['@siegel/core'];
      await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
      await mkdir(join(project.dir, 'node_modules'));
      for (const entry of await readdir(join(REPO_ROOT, 'node_modules'))) {
        if (!entry.startsWith('.'))
          await symlink(join(REPO_ROOT, 'node_modules', entry), join(project.dir, 'node_modules', entry));
      }
      expect(await readFile(config, 'utf8')).not.toMatch(/@siegel\/astro|siegel\(/);

      const added = await runAstro(project.dir, ['add', '@siegel/astro', '--yes'], {
        npm_config_registry: registry.url,
      });
      expect(added.code, added.output).toBe(0);
      expect(registry.requests).toContain('/@siegel/astro/latest');
      const updated = await readFile(config, 'utf8');
      expect(updated).toMatch(/import siegel from ['"]@siegel\/astro['"]/);
      expect(updated).toMatch(/integrations: \[\s*siegel\(\)\s*\]/);

      await project.writeEnv(bunkerEnv(bunker));
      const built = await project.build();
      expect(built.code, built.output).toBe(0);
      const pages = await checkPages(project.outDir);
      expect(pages.length).toBeGreaterThan(4);
      expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
      expect(existsSync(join(project.dir, 'package-lock.json'))).toBe(false);
    } finally {
      await registry.close();
      await rm(parent, { recursive: true, force: true });
    }
  });
});

function runAstro(cwd: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  const script = join(REPO_ROOT, 'node_modules/astro/bin/astro.mjs');
  return runCommand(process.execPath, [script, ...args], {
    cwd,
    env: { ...process.env, ...env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', CI: '1' },
  });
}
