import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const WORK_ROOT = join(REPO_ROOT, 'test/integrations/.work');

/** How the conformance suite drives one of the three example sites. */
export interface ExampleAdapter {
  /** `astro`, `vite`, `eleventy`. */
  tool: string;
  /** Folder under `examples/`. */
  example: string;
  /** Build output folder, relative to the project. */
  outDir: string;
  /** Config file, relative to the project. */
  configFile: string;
  /** The build command: a JS entry run with `process.execPath`, and its arguments. */
  command(): { script: string; args: string[] };
  /** Config source with `options` merged into the `siegel(...)` call. */
  withOptions(source: string, options: Record<string, unknown>): string;
  /** Config source without Siegel: the unsigned reference build. */
  withoutSiegel(source: string): string;
  /** A content file whose edit changes exactly one page, and that page's path in the output. */
  editable: { file: string; page: string; edit(source: string): string };
}

function binOf(pkg: string, name?: string): string {
  // Not require.resolve(`${pkg}/package.json`): @11ty/eleventy's exports map does not expose it.
  const manifestPath = join(REPO_ROOT, 'node_modules', pkg, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : (manifest.bin[name ?? pkg] ?? Object.values(manifest.bin)[0]);
  return join(dirname(manifestPath), bin as string);
}

const mergeCall = (call: string) => (source: string, options: Record<string, unknown>) => {
  const pattern = new RegExp(`${call.replace(/[()]/g, '\\$&')}(\\{[^)]*\\})?\\)`);
  if (!pattern.test(source)) throw new Error(`no \`${call}\` in the config`);
  return source.replace(
    pattern,
    (_match, existing: string | undefined) =>
      `${call}{ ...${existing ?? '{}'}, ...${JSON.stringify(options)} })`,
  );
};

export const ADAPTERS: ExampleAdapter[] = [
  {
    tool: 'astro',
    example: 'astro-site',
    outDir: 'dist',
    configFile: 'astro.config.mjs',
    command: () => ({ script: binOf('astro'), args: ['build'] }),
    withOptions: mergeCall('siegel('),
    withoutSiegel: (source) => source.replace(/siegel\([^)]*\)/, ''),
    editable: {
      file: 'src/content/blog/second-post.md',
      page: 'blog/second-post/index.html',
      edit: (source) => `${source}\nAn added paragraph: this post changed after it was signed.\n`,
    },
  },
  {
    tool: 'vite',
    example: 'vite-site',
    outDir: 'dist',
    configFile: 'vite.config.js',
    command: () => ({ script: binOf('vite'), args: ['build'] }),
    withOptions: mergeCall('siegel('),
    withoutSiegel: (source) => source.replace(/siegel\(\{[^)]*\}\)/, ''),
    editable: {
      file: 'about/index.html',
      page: 'about/index.html',
      edit: (source) => source.replace('</main>', '  <p>An added paragraph.</p>\n    </main>'),
    },
  },
  {
    tool: 'eleventy',
    example: 'eleventy-site',
    outDir: '_site',
    configFile: 'eleventy.config.js',
    command: () => ({ script: binOf('@11ty/eleventy', 'eleventy'), args: [] }),
    withOptions: mergeCall('addPlugin(siegel, '),
    withoutSiegel: (source) => source.replace(/eleventyConfig\.addPlugin\(siegel[^)]*\);/, ''),
    editable: {
      file: 'src/about.md',
      page: 'about/index.html',
      edit: (source) => `${source}\nAn added paragraph: this page changed after it was signed.\n`,
    },
  },
];

/**
 * The VitePress example, driven like the others but not part of the shared conformance suite (ADAPTERS):
 * test/integrations/vitepress.test.ts checks what its builds must do. Its config lives below the
 * VitePress root `docs/`, and `.env` and the cache in the project root above it.
 */
export const VITEPRESS_ADAPTER: ExampleAdapter = {
  tool: 'vitepress',
  example: 'vitepress-site',
  outDir: 'docs/.vitepress/dist',
  configFile: 'docs/.vitepress/config.mts',
  command: () => ({ script: binOf('vitepress'), args: ['build', 'docs'] }),
  withOptions: mergeCall('siegel('),
  withoutSiegel: (source) => source.replace(/siegel\(\{[^)]*\}\)/, ''),
  editable: {
    file: 'docs/about.md',
    page: 'about.html',
    edit: (source) => `${source}\nAn added paragraph: this page changed after it was signed.\n`,
  },
};

/** Result of one build. */
export interface BuildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout + stderr */
  output: string;
}

/** A private copy of an example, inside the repository so its packages resolve from the workspace. */
export interface ExampleProject {
  dir: string;
  outDir: string;
  adapter: ExampleAdapter;
  /** Rewrite the config: `options` merged into Siegel's, or `false` for no Siegel at all. */
  configure(options: Record<string, unknown> | false): Promise<void>;
  /** Rewrite the config from the example's original source. */
  configureSource(edit: (original: string) => string): Promise<void>;
  /** Write `.env` (replacing it); `undefined` values are left out. */
  writeEnv(env: Record<string, string | undefined>): Promise<void>;
  /** Run the build command (in `cwd`, default the project, with other `args` if given). */
  build(extraEnv?: Record<string, string>, run?: { cwd?: string; args?: string[] }): Promise<BuildResult>;
  /** Every file in the output, relative paths with `/`, sorted. */
  listOutput(): Promise<string[]>;
  read(relativePath: string): Promise<string>;
  remove(): Promise<void>;
}

const SKIP = new Set(['node_modules', 'dist', '_site', '.astro', '.env', '.sign-cache.json']);

/** Copy `examples/<adapter.example>` to a fresh work folder. */
export async function copyExample(
  adapter: ExampleAdapter,
  label = adapter.tool,
  parent = WORK_ROOT,
): Promise<ExampleProject> {
  const source = join(REPO_ROOT, 'examples', adapter.example);
  const dir = join(parent, `${label}-${randomBytes(4).toString('hex')}`);
  await mkdir(parent, { recursive: true });
  await cp(source, dir, { recursive: true, filter: (path) => !SKIP.has(path.split(sep).at(-1) ?? '') });
  const original = await readFile(join(dir, adapter.configFile), 'utf8');
  const outDir = join(dir, adapter.outDir);
  return {
    dir,
    outDir,
    adapter,
    async configure(options) {
      const next =
        options === false ? adapter.withoutSiegel(original) : adapter.withOptions(original, options);
      await writeFile(join(dir, adapter.configFile), next);
    },
    async configureSource(edit) {
      await writeFile(join(dir, adapter.configFile), edit(original));
    },
    async writeEnv(env) {
      const lines = Object.entries(env)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${value}`);
      await writeFile(join(dir, '.env'), `${lines.join('\n')}\n`);
    },
    build: (extraEnv = {}, run = {}) => runBuild(adapter, run.cwd ?? dir, extraEnv, run.args),
    listOutput: () => listFiles(outDir),
    read: (relativePath) => readFile(join(outDir, relativePath), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Every file under `dir`, relative, `/`-separated, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

function runBuild(
  adapter: ExampleAdapter,
  cwd: string,
  extraEnv: Record<string, string>,
  otherArgs?: string[],
): Promise<BuildResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('BUNKER_') && !key.startsWith('VITEST')) env[key] = value;
  }
  Object.assign(
    env,
    { NO_COLOR: '1', FORCE_COLOR: '0', ASTRO_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    extraEnv,
  );
  const { script, args: defaultArgs } = adapter.command();
  const args = otherArgs ?? defaultArgs;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, output: `${stdout}\n${stderr}` }));
  });
}
