// What only Vite has: several environments per build, failed builds, and the dev server.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PAGE_EVENT_KIND } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NSITE_NAMED_KIND } from '../../packages/core/src/manifest/site-manifest.js';
import { bunkerEnv, type RunningBunker, startBunker } from '../support/bunker-process.js';
import { type CountingProxy, startCountingProxy } from '../support/counting-proxy.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { ADAPTERS, copyExample, type ExampleProject } from './support/example-project.js';
import { startCommand } from './support/run-command.js';
import { checkPages, listPages, signatureProblems } from './support/signed-output.js';

// Timeouts (docs/testing.md): Vite builds and the dev server: 9 s among parallel files
vi.setConfig({ testTimeout: 45_000 });

const vite = ADAPTERS.find((adapter) => adapter.tool === 'vite');
if (!vite) throw new Error('no vite adapter');

let bunker: RunningBunker;
let counter: CountingProxy;
const projects: ExampleProject[] = [];

beforeAll(async () => {
  bunker = await startBunker();
  counter = await startCountingProxy(bunker.url);
});

afterAll(async () => {
  await Promise.all(projects.map((project) => project.remove()));
  await counter?.close();
  await bunker?.stop();
});

async function project(editConfig: (source: string) => string): Promise<ExampleProject> {
  const copy = await copyExample(vite as NonNullable<typeof vite>, 'vite-specific');
  projects.push(copy);
  await copy.configureSource(editConfig);
  await copy.writeEnv(bunkerEnv(bunker, counter.url));
  return copy;
}

/** Lines Siegel logs once per signing run (core's summary goes through Vite's logger with this prefix). */
const signingRuns = (output: string) =>
  output.split('\n').filter((line) => /^\[@siegel\/vite\] Siegel: \d+ signed/.test(line)).length;

describe('@siegel/vite', () => {
  it('with two environments (client + ssr) signs once, the client output only', async () => {
    const copy = await project((source) =>
      source.replace(
        'build: {',
        `builder: {},
  environments: { ssr: { build: { outDir: 'dist-server', rolldownOptions: { input: 'src/entry-server.js' } } } },
  build: {`,
      ),
    );
    await writeFile(
      join(copy.dir, 'src/entry-server.js'),
      "export const render = () => '<main><p>server</p></main>';\n",
    );
    counter.reset();
    const result = await copy.build();
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/ssr/);
    expect(existsSync(join(copy.dir, 'dist-server'))).toBe(true);
    expect(signingRuns(result.output), result.output).toBe(1);
    // One request for the pages, one for the client output's site manifest.
    expect(counter.signRequests(PAGE_EVENT_KIND)).toBe(1);
    expect(counter.signedEvents(NSITE_NAMED_KIND)).toBe(1);
    expect(existsSync(join(copy.outDir, 'verify/manifest.json'))).toBe(true);
    const pages = await checkPages(copy.outDir);
    expect(pages.length).toBe(4);
    expect(pages.flatMap((page) => signatureProblems(page, bunker.pubkey))).toEqual([]);
    expect(existsSync(join(copy.dir, 'dist-server/verify'))).toBe(false);
  });

  it('a failed build signs nothing', async () => {
    const copy = await project((source) =>
      source.replace(
        'plugins: [',
        "plugins: [{ name: 'fail-late', generateBundle() { this.error('deliberate failure'); } }, ",
      ),
    );
    counter.reset();
    const result = await copy.build();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('deliberate failure');
    expect(counter.signRequests()).toBe(0);
    expect(signingRuns(result.output)).toBe(0);
    expect(existsSync(join(copy.dir, '.sign-cache.json'))).toBe(false);
    if (existsSync(copy.outDir)) {
      for (const page of await checkPages(copy.outDir)) expect(page.block, page.path).toBeUndefined();
    }
  });

  it('a build that signs no page fails: pages without the element, or no HTML page at all (issue 39)', async () => {
    const copy = await project((source) =>
      source.replace(
        "siegel({ site: 'https://vite-example.siegel.invalid' })",
        "siegel({ site: 'https://vite-example.siegel.invalid', selector: 'aside' })",
      ),
    );
    counter.reset();
    const none = await copy.build();
    expect(none.code, none.output).not.toBe(0);
    expect(none.output).toContain(
      `Siegel: 4 HTML pages found in \`${copy.outDir}\`, none signed: none has an <aside>. If the content is in another element, name it with \`--selector\``,
    );
    expect(counter.signRequests()).toBe(0);

    // A build whose only input is a script writes no HTML page at all.
    await copy.configureSource((source) =>
      source.replace(/input: \{[^}]*\}/, "input: { main: resolve(root, 'src/main.js') }"),
    );
    const empty = await copy.build();
    expect(empty.code, empty.output).not.toBe(0);
    expect(empty.output).toContain(`Siegel: no HTML page found in \`${copy.outDir}\`, nothing signed.`);

    // onError: 'warn' turns it into a warning, as any signing error.
    await copy.configureSource((source) =>
      source.replace(
        "siegel({ site: 'https://vite-example.siegel.invalid' })",
        "siegel({ site: 'https://vite-example.siegel.invalid', selector: 'aside', onError: 'warn' })",
      ),
    );
    const warned = await copy.build();
    expect(warned.code, warned.output).toBe(0);
    expect(warned.output).toContain("The build finished without signatures (onError: 'warn').");
  });

  it('a dev server signs nothing, neither while running nor when it closes', async () => {
    const copy = await project((source) => source);
    counter.reset();
    const port = await freePort();
    const server = startCommand(
      process.execPath,
      [vite?.command().script ?? '', '--port', String(port), '--strictPort'],
      { cwd: copy.dir, env: { ...process.env, NO_COLOR: '1' } },
    );
    try {
      const response = await waitForOk(`http://127.0.0.1:${port}/about/`);
      expect(await response.text()).toContain('<main>');
    } finally {
      await server.stop();
    }
    expect(counter.signRequests()).toBe(0);
    expect(signingRuns(server.output)).toBe(0);
    expect(existsSync(join(copy.dir, '.sign-cache.json'))).toBe(false);
    expect(existsSync(copy.outDir) ? await listPages(copy.outDir) : []).toEqual([]);
  });
});

async function waitForOk(url: string): Promise<Response> {
  let response: Response | undefined;
  await eventually(async () => {
    response = await fetch(url).catch(() => undefined); // not up yet
    return response?.ok === true;
  }, 30_000).catch(() => {
    throw new Error(`${url} did not answer`);
  });
  return response as Response;
}
