// Issue 12, acceptance 1 and 2: the packages as a registry serves them, installed the way users install
// them, into fresh projects outside the repository.
//
// A copy of the working tree as a clean clone has it (tracked and new files, nothing ignored) gets
// `npm ci` and nothing else; `npm pack` of every package there must build it (prepack) and ship exactly the
// files listed in expected-files.json. The tarballs are published to a real Verdaccio on loopback, and
// projects under the OS temp directory, each with its own node_modules and an `.npmrc` naming that
// registry, install them: the bunker and the CLI with `npm install` and run them with `npx`, Astro with
// `npx astro add @siegel/astro`, Eleventy, Vite and VitePress with `npm install`, the file server with
// `npm install` and `npx siegel-server`, and its client with `npm install @siegel/client`. Each project
// builds, signs against the bunker installed from the registry, and is verified page by page with its own
// `npx siegel verify` and the checks of the integration tests, and one verify page of each in Chromium.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../integrations/support/example-project.js';
import { type StartedCommand, startCommand } from '../integrations/support/run-command.js';
import { checkPages, signatureProblems } from '../integrations/support/signed-output.js';
import { readVerifyVerdict } from '../integrations/support/verify-in-chromium.js';
import { freePort } from '../support/free-port.js';
import { type UserShell, userShell, waitForOutput } from './support/user-shell.js';
import { type Registry, startRegistry } from './support/verdaccio.js';
import { copyWorkingTree } from './support/working-tree.js';

// Timeouts (docs/testing.md): npm installs from a real registry and real builds: 89 s alone for the slowest
vi.setConfig({ testTimeout: 300_000 });

/** The published packages: workspace folder → name. */
const PACKAGES: Record<string, string> = {
  'packages/core': '@siegel/core',
  'packages/bunker': '@siegel/bunker',
  'packages/astro': '@siegel/astro',
  'packages/vite': '@siegel/vite',
  'packages/eleventy': '@siegel/eleventy',
  'packages/formats': '@siegel/formats',
  'packages/client': '@siegel/client',
  server: '@siegel/server',
};

/** The version the repository itself installs (so that a warm npm cache serves the fresh projects too). */
async function repoVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  return (manifest as { version: string }).version;
}

let work: string;
let shell: UserShell;
let registry: Registry | undefined;
let bunker: StartedCommand | undefined;
const packed = new Map<string, { tarball: string; files: string[] }>();
let bunkerEnv: Record<string, string>;
let pubkey: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'siegel-registry-'));
  shell = await userShell(work);
  const clone = join(work, 'clone');
  await copyWorkingTree(REPO_ROOT, clone);
  await shell.ok(clone, 'npm', ['ci', '--prefer-offline']);
  const tarballs = join(work, 'tarballs');
  await mkdir(tarballs);
  for (const [folder, name] of Object.entries(PACKAGES)) {
    const output = await shell.ok(join(clone, folder), 'npm', [
      'pack',
      '--json',
      '--pack-destination',
      tarballs,
    ]);
    // prepack's build writes its own lines before npm's JSON.
    const report = JSON.parse(output.slice(output.indexOf('[\n'))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const entry = report[0];
    if (!entry) throw new Error(`npm pack of ${name} reported nothing:\n${output}`);
    packed.set(name, {
      tarball: join(tarballs, entry.filename),
      files: entry.files.map((file) => file.path).sort(),
    });
  }
  registry = await startRegistry(join(work, 'registry'));
}, 900_000);

afterAll(async () => {
  await bunker?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The last line a command printed (npm's own warnings about the machine's `.npmrc` may come first). */
const lastLine = (output: string) => output.trim().split('\n').at(-1);

/** A fresh project folder under the OS temp directory with an `.npmrc` naming the test registry. */
async function freshProject(name: string, manifest: Record<string, unknown> = {}): Promise<string> {
  const dir = join(work, 'projects', name);
  if (dir.startsWith(REPO_ROOT)) throw new Error(`${dir} is inside the repository`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', ...manifest }, null, 2)}\n`,
  );
  await writeFile(join(dir, '.npmrc'), `registry=${registry?.url}\n`);
  return dir;
}

/** Write `files` (path → text) under `dir`. */
async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** The `.env` a user writes for the bunker the test installed from the registry. */
const dotenv = () =>
  Object.entries(bunkerEnv)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');

/**
 * Check a signed build output as a reader would: the project's own `npx siegel verify` finds every page
 * with a `<main>` valid (and nothing invalid), every such page carries a block for the bunker's key whose
 * event verifies, and one verify page says valid in Chromium. Returns the number of signed pages.
 */
async function expectSigned(
  project: string,
  outDir: string,
  options: { base?: string } = {},
): Promise<number> {
  const checks = await checkPages(join(project, outDir));
  const signed = checks.filter((check) => check.hasMain);
  expect(signed.length).toBeGreaterThan(0);
  expect(signed.flatMap((check) => signatureProblems(check, pubkey))).toEqual([]);
  const verify = await shell.run(project, 'npx', ['siegel', 'verify', outDir]);
  expect(verify.output).toMatch(new RegExp(`\\b${signed.length} valid, 0 invalid, 0 not found\\b`));
  expect(verify.code, verify.output).toBe(0);
  const verdict = await readVerifyVerdict(join(project, outDir), signed[0]?.block?.eventId, options);
  expect(verdict.state, verdict.text).toBe('valid');
  return signed.length;
}

// Each test installs from the registry and builds a site: 25–50 s on a quiet machine, past the suite's 120 s
// on a loaded one (a VitePress install once took longer in a run beside other builds), so they get more room.
describe('the packages from a registry, installed into fresh projects', { timeout: 300_000 }, () => {
  it('npm pack of every package, after `npm ci` only, ships exactly the expected files', async () => {
    const expected = JSON.parse(
      await readFile(new URL('./expected-files.json', import.meta.url), 'utf8'),
    ) as Record<string, string[]>;
    const actual = Object.fromEntries([...packed].map(([name, { files }]) => [name, files]));
    // When a package gains or loses a file on purpose, review this list and copy it over expected-files.json.
    const actualPath = join(tmpdir(), 'siegel-pack-files.json');
    await writeFile(actualPath, `${JSON.stringify(actual, null, 2)}\n`);
    expect(
      actual,
      `the packed files differ from expected-files.json; what npm packed: ${actualPath}`,
    ).toEqual(expected);
    for (const [name, { files }] of packed) {
      expect(files, name).toContain('LICENSE');
      expect(
        files.filter((path) => path.endsWith('.map') || path.endsWith('.tsbuildinfo')),
        name,
      ).toEqual([]);
    }
  });

  it('publishes every package to the registry, which then serves it', async () => {
    for (const [name, { tarball }] of packed) {
      await shell.ok(work, 'npm', ['publish', tarball, '--userconfig', registry?.npmrc ?? '']);
      const manifest = (await (await fetch(`${registry?.url}${name.replace('/', '%2f')}`)).json()) as {
        'dist-tags': { latest: string };
      };
      expect(manifest['dist-tags'].latest, name).toBe('0.1.0');
    }
  });

  it('`npx siegel-bunker` from the registry starts a development bunker', async () => {
    const project = await freshProject('fresh-bunker');
    await shell.ok(project, 'npm', ['install', '@siegel/bunker']);
    const port = await freePort();
    bunker = startCommand('npx', ['siegel-bunker', 'start', '--dev', '--port', String(port)], {
      cwd: project,
      env: shell.env,
    });
    // The development bunker prints its API token for the user to copy, and one machine-readable line.
    const ready = (await waitForOutput(bunker, /^SIEGEL_BUNKER_READY (.*)$/m))[1];
    const output = bunker.output;
    const { url, apiToken, pubkey: hex } = JSON.parse(ready as string) as Record<string, string>;
    expect(output).toContain(`BUNKER_API_TOKEN=${apiToken}`);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    pubkey = hex as string;
    bunkerEnv = {
      BUNKER_URL: url as string,
      BUNKER_API_TOKEN: apiToken as string,
      BUNKER_KEY_NAME: 'default',
    };
    expect(lastLine(await shell.ok(project, 'npx', ['siegel-bunker', '--version']))).toBe('0.1.0');
  });

  it('the `siegel` CLI from the registry signs and verifies a built site', async () => {
    const project = await freshProject('fresh-cli');
    await shell.ok(project, 'npm', ['install', '@siegel/core']);
    await writeFiles(project, {
      '.env': dotenv(),
      'public/index.html':
        '<!doctype html><html lang="en"><head><title>Home</title></head><body><main><h1>Home</h1><p>Signed by the CLI.</p></main></body></html>\n',
      'public/notes/first.html':
        '<!doctype html><html lang="en"><head><title>First</title></head><body><main><p>A note &amp; more.</p></main></body></html>\n',
      'public/plain.html':
        '<!doctype html><html><head><title>Plain</title></head><body><p>No main</p></body></html>\n',
    });
    const sign = await shell.ok(project, 'npx', [
      'siegel',
      'sign',
      'public',
      '--site',
      'https://cli.siegel.invalid',
    ]);
    expect(sign).toMatch(/2 signed/);
    expect(await expectSigned(project, 'public')).toBe(2);
  });

  // Each install is a fresh project of its own against the same registry and bunker: they run side by side
  // (npm's cache is safe for that), so the file costs the slowest install, not the sum of all five.
  describe.concurrent('each into a fresh project of its own', () => {
    it('`npx astro add @siegel/astro` in a fresh Astro project: the build signs every page', async () => {
      const project = await freshProject('fresh-astro', { scripts: { build: 'astro build' } });
      await shell.ok(project, 'npm', ['install', `astro@${await repoVersion('astro')}`]);
      const page = (title: string, body: string) =>
        `---\n---\n<html lang="en"><head><meta charset="utf-8" /><title>${title}</title></head><body><main>${body}</main></body></html>\n`;
      await writeFiles(project, {
        '.env': dotenv(),
        'astro.config.mjs':
          "import { defineConfig } from 'astro/config';\n\nexport default defineConfig({\n  site: 'https://astro.siegel.invalid',\n});\n",
        'src/pages/index.astro': page('Home', '<h1>Fresh Astro</h1><p>Hello.</p>'),
        'src/pages/blog/first-post.astro': page('First post', '<h1>First post</h1><p>Words &amp; more.</p>'),
        'src/pages/about.astro': page('About', '<p>About this site.</p>'),
      });
      await shell.ok(project, 'npx', ['astro', 'add', '@siegel/astro', '--yes']);
      const config = await readFile(join(project, 'astro.config.mjs'), 'utf8');
      expect(config).toMatch(/from ['"]@siegel\/astro['"]/);
      const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
      expect(manifest.dependencies['@siegel/astro']).toBeDefined();
      await shell.ok(project, 'npm', ['run', 'build']);
      expect(await expectSigned(project, 'dist')).toBe(3);
    });

    it('`npm install @siegel/eleventy` in a fresh Eleventy project: the build signs every page', async () => {
      const project = await freshProject('fresh-eleventy', { scripts: { build: 'eleventy' } });
      await shell.ok(project, 'npm', ['install', '@11ty/eleventy@3.1.5', '@siegel/eleventy']);
      await writeFiles(project, {
        '.env': dotenv(),
        'eleventy.config.js':
          "import siegel from '@siegel/eleventy';\n\nexport default function (eleventyConfig) {\n  eleventyConfig.addPlugin(siegel, { site: 'https://eleventy.siegel.invalid' });\n}\n",
        '_includes/base.njk':
          '<!doctype html>\n<html lang="en"><head><title>{{ title }}</title></head><body><main>{{ content | safe }}</main></body></html>\n',
        'index.md': '---\nlayout: base.njk\ntitle: Home\n---\n# Fresh Eleventy\n\nHello.\n',
        'posts/hello.md': '---\nlayout: base.njk\ntitle: Hello\n---\nA post with *emphasis*.\n',
        'feed.njk': '---\npermalink: /feed.xml\n---\n<?xml version="1.0"?><feed></feed>\n',
      });
      await shell.ok(project, 'npm', ['run', 'build']);
      expect(await readFile(join(project, '_site/feed.xml'), 'utf8')).toBe(
        '<?xml version="1.0"?><feed></feed>\n',
      );
      expect(await expectSigned(project, '_site')).toBe(2);
    });

    it('`npm install @siegel/vite` in a fresh Vite multi-page project: the build signs every page', async () => {
      const project = await freshProject('fresh-vite', { scripts: { build: 'vite build' } });
      await shell.ok(project, 'npm', ['install', `vite@${await repoVersion('vite')}`, '@siegel/vite']);
      const html = (title: string, body: string) =>
        `<!doctype html>\n<html lang="en"><head><meta charset="utf-8" /><title>${title}</title><script type="module" src="/main.js"></script></head><body><main>${body}</main></body></html>\n`;
      await writeFiles(project, {
        '.env': dotenv(),
        'main.js': "document.documentElement.dataset.ready = 'yes';\n",
        'index.html': html('Home', '<h1>Fresh Vite</h1>'),
        'about/index.html': html('About', '<p>About.</p>'),
        'vite.config.js': `import { resolve } from 'node:path';
  import siegel from '@siegel/vite';
  import { defineConfig } from 'vite';

  export default defineConfig({
    plugins: [siegel({ site: 'https://vite.siegel.invalid' })],
    build: {
      rollupOptions: {
        input: { main: resolve(import.meta.dirname, 'index.html'), about: resolve(import.meta.dirname, 'about/index.html') },
      },
    },
  });
  `,
      });
      await shell.ok(project, 'npm', ['run', 'build']);
      expect(await expectSigned(project, 'dist')).toBe(2);
    });

    it('`npm install @siegel/vite` in a fresh VitePress site: `vitepress build` signs every page', async () => {
      const project = await freshProject('fresh-vitepress', {
        scripts: { 'docs:build': 'vitepress build docs' },
      });
      await shell.ok(project, 'npm', [
        'install',
        `vitepress@${await repoVersion('vitepress')}`,
        '@siegel/vite',
      ]);
      await writeFiles(project, {
        // In the project root, where `npm run` starts, not in the VitePress root `docs/`.
        '.env': dotenv(),
        'docs/.vitepress/config.mts': `import siegel from '@siegel/vite';
  import { defineConfig } from 'vitepress';

  export default defineConfig({
    title: 'Fresh VitePress',
    vite: { plugins: [siegel({ site: 'https://vitepress.siegel.invalid' })] },
  });
  `,
        'docs/index.md': '# Fresh VitePress\n\nHello from a registry install.\n',
        'docs/guide/start.md': '# Start\n\nA page with `code` & more.\n',
      });
      const build = await shell.ok(project, 'npm', ['run', 'docs:build']);
      expect(build).toMatch(/Siegel: 2 signed/);
      expect(await expectSigned(project, 'docs/.vitepress/dist')).toBe(2);
    });

    it('`npx siegel-server` from the registry signs a file and verifies it', async () => {
      const project = await freshProject('fresh-server');
      await shell.ok(project, 'npm', ['install', '@siegel/server']);
      expect(lastLine(await shell.ok(project, 'npx', ['siegel-server', '--version']))).toBe('0.1.0');
      const port = await freePort();
      const server = startCommand('npx', ['siegel-server'], {
        cwd: project,
        env: {
          ...shell.env,
          ...bunkerEnv,
          PORT: String(port),
          SIGN_API_TOKENS: 'a-sign-token-for-the-test',
          SIEGEL_DATA_DIR: join(project, 'data'),
        },
      });
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitForOutput(server, /listening on/);
        const form = new FormData();
        form.append(
          'file',
          new Blob(['---\nauthor: Jane Writer\n---\n# Notes\n\nSigned from a registry install.\n']),
          'notes.md',
        );
        const signed = await fetch(`${base}/api/sign-image-v2`, {
          method: 'POST',
          headers: { authorization: 'Bearer a-sign-token-for-the-test' },
          body: form,
        });
        const body = (await signed.json()) as { hash: string; urls: Record<string, string> };
        expect(signed.status, JSON.stringify(body)).toBe(200);
        expect(body.urls.verify).toBe(`http://localhost:${port}/verify?hash=${body.hash}`);
        expect(body.urls.verify_api).toBe(`http://localhost:${port}/api/verify?hash=${body.hash}`);
        const verified = (await (await fetch(`${base}/api/verify?hash=${body.hash}`)).json()) as {
          verified: boolean;
        };
        expect(verified.verified).toBe(true);
        const page = await (await fetch(`${base}/verify?hash=${body.hash}`)).text();
        expect(page).toContain('Jane Writer');

        // @siegel/client from the registry, in a project of its own: its exports map (the root and `/embed`)
        // and its build, against the server installed from the registry.
        const clientProject = await freshProject('fresh-client');
        await shell.ok(clientProject, 'npm', ['install', '@siegel/client']);
        await writeFiles(clientProject, {
          'sign.mjs': [
            "import { createClient } from '@siegel/client';",
            "import { embedAuthor } from '@siegel/client/embed';",
            "const bytes = await embedAuthor(new TextEncoder().encode('# Client notes\\n'), { author: 'Ana Lima' });",
            `const client = createClient({ baseUrl: '${base}', token: 'a-sign-token-for-the-test' });`,
            "const result = await client.sign(bytes, { fileName: 'client-notes.md' });",
            'const verdict = await client.verify(result.hash);',
            'console.log(JSON.stringify({ authors: result.metadata.authors, verified: verdict.found && verdict.verified }));',
          ].join('\n'),
        });
        const report = JSON.parse(lastLine(await shell.ok(clientProject, 'node', ['sign.mjs'])) ?? '{}');
        expect(report).toEqual({ authors: ['Ana Lima'], verified: true });
      } finally {
        await server.stop();
      }
    });
  });
});
